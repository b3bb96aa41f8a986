/**
 * npm run bench:cohorts      (Postgres: DATABASE_URL, else the local server; a throwaway database)
 *
 * The reports a marketer opens first (docs/reports.md) on the DuckDB mirror against the same SQL
 * on Postgres, in one run: a 30-day cohort report by campaign with days 0,1,3,7,14,30 over
 * 1,000,000 installs and 20,000,000 SDK events (90 days, 50 campaigns with costs), and a 90-day
 * breakdown by country and OS over 10,000,000 clicks. Both stores are seeded by the same
 * deterministic SQL; the answers must be equal. The reporting zone is Europe/Berlin and a share
 * of the revenue is in EUR with a rate a day, so the zone's days and the conversion are measured
 * too. One JSON line; the figures are in docs/performance-analytics.md.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createMirror } from '../src/analytics/mirror/mirror';
import { DEFAULT_MIRROR_MEMORY_MB, DEFAULT_MIRROR_THREADS } from '../src/config/defaults';
import { migrate } from '../src/db/migrate';
import { openPostgres } from '../src/db/postgres';
import { cohortStatement, breakdownStatement, type ReportStatement } from './cohorts-reports';
import { scratchDir } from './scratch-dir';
import { dropUnlessKept, throwawayDatabase } from './throwaway-database';
import { COUNTS, CAMPAIGNS, DAYS, dayOf, duckSeed, ORG, POSTGRES_ONLY, postgresSeed, smallRows, ZONE } from './cohorts-seed';
import { median, parallelWorkers, seedDuck, seedPostgres, timed } from './two-stores';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET = { cohort_duckdb_ms: 1000, cohort_ratio: 10, breakdown_duckdb_ms: 1000 };
const log = (message: string) => console.error(`bench:cohorts: ${message}`);

type Store = { query: <T>(sql: string, params: unknown[]) => Promise<T[]> };

/** One report's runs on a store: the median, every run, and the answer in comparable form. */
async function measure(statement: ReportStatement, store: Store) {
  const { ms, result } = await timed(RUNS, () => store.query<Record<string, unknown>>(statement.sql, statement.params));
  return { median_ms: median(ms), runs_ms: ms, rows: result.length, answer: JSON.stringify(statement.shape(result)) };
}

const database = await throwawayDatabase();
try {
  const setup = openPostgres(database.url, { max: 1 });
  await migrate(setup);
  await setup.close();
  const file = join(scratchDir('cohorts'), 'analytics.duckdb');
  const duckSeedSeconds = await seedDuck(database.url, file, smallRows(), duckSeed, COUNTS, log);
  const seedSeconds = await seedPostgres(database.url, [...POSTGRES_ONLY, ...smallRows()], postgresSeed, COUNTS, log);

  const memoryMb = Number(process.env.MIRROR_MEMORY_MB ?? DEFAULT_MIRROR_MEMORY_MB);
  // The node's setting (MIRROR_THREADS, default 1), and every core, as Postgres's parallel query uses them.
  const threadCounts = [...new Set([Number(process.env.MIRROR_THREADS ?? DEFAULT_MIRROR_THREADS), navigator.hardwareConcurrency])];
  const statements = {
    cohorts: cohortStatement({ orgId: ORG, zone: ZONE, from: dayOf(DAYS - 60), to: dayOf(DAYS - 31) }),
    breakdown: breakdownStatement({ orgId: ORG, zone: ZONE, from: dayOf(0), to: dayOf(DAYS - 1) }),
  };
  const db = openPostgres(database.url, { max: 1 });
  const loadBefore = loadavg()[0]!;
  const duck: { threads: number; open_ms: number; cohorts: Awaited<ReturnType<typeof measure>>; breakdown: Awaited<ReturnType<typeof measure>> }[] = [];
  for (const threads of threadCounts) {
    const openedAt = performance.now();
    // No catch-up: the DuckDB file was seeded with the same rows, and copying them again through
    // the mirror would measure the copy (bench:mirror does).
    const mirror = await createMirror({ db, path: file, intervalMs: 0, memoryMb, threads, log: () => {} });
    const openMs = Math.round(performance.now() - openedAt);
    duck.push({ threads, open_ms: openMs, cohorts: await measure(statements.cohorts, mirror), breakdown: await measure(statements.breakdown, mirror) });
    log(`duckdb ${threads} thread(s): cohorts ${duck.at(-1)!.cohorts.median_ms} ms, breakdown ${duck.at(-1)!.breakdown.median_ms} ms`);
    await mirror.stop();
  }
  const pg = { cohorts: await measure(statements.cohorts, db), breakdown: await measure(statements.breakdown, db) };
  log(`postgres: cohorts ${pg.cohorts.median_ms} ms, breakdown ${pg.breakdown.median_ms} ms`);
  const workers = await parallelWorkers(db);
  await db.close();
  const ratio = (a: number, b: number) => Math.round((a / b) * 10) / 10;
  const runs = duck.map(({ threads, open_ms, cohorts, breakdown }) => {
    const cohortsSame = cohorts.answer === pg.cohorts.answer;
    const breakdownSame = breakdown.answer === pg.breakdown.answer;
    const cohortRatio = ratio(pg.cohorts.median_ms, cohorts.median_ms);
    return {
      threads,
      mirror_open_ms: open_ms,
      cohorts: { median_ms: cohorts.median_ms, runs_ms: cohorts.runs_ms, rows: cohorts.rows, ratio: cohortRatio, same_result: cohortsSame },
      breakdown: { median_ms: breakdown.median_ms, runs_ms: breakdown.runs_ms, rows: breakdown.rows, ratio: ratio(pg.breakdown.median_ms, breakdown.median_ms), same_result: breakdownSame },
      met: {
        cohorts: cohortsSame && cohorts.median_ms <= TARGET.cohort_duckdb_ms && cohortRatio >= TARGET.cohort_ratio,
        breakdown: breakdownSame && breakdown.median_ms <= TARGET.breakdown_duckdb_ms,
      },
    };
  });
  console.log(JSON.stringify({
    bench: 'cohorts',
    ...COUNTS,
    campaigns: CAMPAIGNS,
    days: DAYS,
    zone: ZONE,
    mirror_memory_mb: memoryMb,
    duckdb: runs,
    postgres: {
      cohorts: { median_ms: pg.cohorts.median_ms, runs_ms: pg.cohorts.runs_ms },
      breakdown: { median_ms: pg.breakdown.median_ms, runs_ms: pg.breakdown.runs_ms },
      max_parallel_workers_per_gather: workers,
    },
    target: TARGET,
    load_avg: [Math.round(loadBefore * 100) / 100, Math.round(loadavg()[0]! * 100) / 100],
    mirror_load_s: Math.round(duckSeedSeconds * 10) / 10,
    postgres_seed_s: Math.round(seedSeconds * 10) / 10,
  }));
} finally {
  await dropUnlessKept(database, log);
}
