/**
 * npm run bench:pivot        (Postgres: DATABASE_URL, else the local server; a throwaway database)
 *
 * The campaigns report (src/analytics/pivot.ts) for 30 days over 10 million clicks, with installs,
 * conversions, revenue events and costs in proportion: PIVOT_SQL on the DuckDB mirror, with the
 * node's MIRROR_THREADS and with every core, against the same SQL on Postgres, in one run. Both
 * stores are seeded by the same deterministic SQL, and the answers must be equal. One JSON line.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createMirror } from '../src/analytics/mirror/mirror';
import { DEFAULT_MIRROR_MEMORY_MB, DEFAULT_MIRROR_THREADS } from '../src/config/defaults';
import { PIVOT_SQL, pivotParams, toPivotRow } from '../src/analytics/pivot';
import { migrate } from '../src/db/migrate';
import { openPostgres } from '../src/db/postgres';
import { scratchDir } from './scratch-dir';
import { dropUnlessKept, throwawayDatabase } from './throwaway-database';
import { DUCKDB_SPELLING, median, parallelWorkers, POSTGRES_SPELLING, seedDuck, seedPostgres, timed } from './two-stores';

const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CAMPAIGNS = 50;
const DAYS = 30;
const FROM = '2026-08-01';
const TO = '2026-08-30';
const ORG = 'org_bench';
const APP = 'app_bench';
const TARGET_DUCKDB_MS = 1000;
const TARGET_RATIO = 10;

/** Rows per kind, in proportion to the clicks. */
const COUNTS = { clicks: CLICKS, installs: Math.round(CLICKS / 50), conversions: Math.round(CLICKS / 100), events: Math.round((CLICKS * 3) / 100) };

const log = (message: string) => console.error(`bench:pivot: ${message}`);

/**
 * The seed, one SELECT per table over the integers `i` of a chunk, written once for both stores:
 * `text(x)` and `secs(x)` are each store's spelling of a cast to text and of x seconds.
 * Every 51st row has no campaign; every 97th click was dropped by an ingestion step (a bot).
 */
function seedSelects(text: (x: string) => string, secs: (x: string) => string) {
  const start = "TIMESTAMPTZ '2026-08-01 00:00:00+00'";
  const window = DAYS * 86_400;
  const campaign = (x: string) => `CASE WHEN ${x} % 51 = 50 THEN NULL ELSE 'cmp_' || ${text(`${x} % 51`)} END`;
  return {
    clicks: {
      columns: 'id, org_id, link_id, campaign_id, created_at, next_hop_url, drop_reason, country',
      select: `'c' || ${text('i')}, '${ORG}', 'link_' || ${text('i % 500')}, ${campaign('i')}, ${start} + ${secs(`(i * 7919) % ${window}`)},
               'https://shop.example.com/p', CASE WHEN i % 97 = 0 THEN 'bot' END, 'US'`,
    },
    installs: {
      columns: 'id, org_id, app_id, device_id_hash, platform, installed_at, attribution_method, campaign_id, attributed_at',
      select: `'i' || ${text('i')}, '${ORG}', '${APP}', 'd' || ${text('i')}, 'android', ${start} + ${secs(`(i * 104729) % ${window}`)},
               'CLICK_ID', ${campaign('i')}, ${start} + ${secs(`(i * 104729) % ${window}`)}`,
    },
    conversions: {
      columns: 'id, org_id, campaign_id, event_name, value, source, created_at, updated_at',
      select: `'v' || ${text('i')}, '${ORG}', ${campaign('i')}, 'purchase', (i % 100) + 0.5, 'api',
               ${start} + ${secs(`(i * 15485863) % ${window}`)}, ${start} + ${secs(`(i * 15485863) % ${window}`)}`,
    },
    events: {
      columns: 'id, org_id, app_id, device_id_hash, name, value, occurred_at',
      select: `'e' || ${text('i')}, '${ORG}', '${APP}', 'd' || ${text(`i % ${COUNTS.installs}`)},
               CASE WHEN i % 3 = 0 THEN 'purchase' ELSE 'ad_revenue' END,
               CASE WHEN i % 3 = 0 THEN (i % 50) + 0.99 ELSE (i % 7 + 1) * 0.01 END, ${start} + ${secs(`(i * 7907) % ${window}`)}`,
    },
  };
}

const postgresSeed = seedSelects(POSTGRES_SPELLING.text, POSTGRES_SPELLING.secs);
const duckSeed = seedSelects(DUCKDB_SPELLING.text, DUCKDB_SPELLING.secs);

/** Campaigns, the app and the costs (50 campaigns x 30 days) are small: the same VALUES in both stores. */
function smallRows() {
  const campaigns = Array.from({ length: CAMPAIGNS }, (_, c) => `('cmp_${c}', '${ORG}', 'Campaign ${c}')`);
  const costs: string[] = [];
  for (let c = 0; c < CAMPAIGNS; c++) {
    for (let d = 0; d < DAYS; d++) {
      const day = new Date(Date.parse(`${FROM}T00:00:00Z`) + d * 86_400_000).toISOString().slice(0, 10);
      costs.push(`('k${c}_${d}', '${ORG}', 'cmp_${c}', DATE '${day}', ${100 + c * 3 + d}.25, 'USD')`);
    }
  }
  return [`INSERT INTO campaigns (id, org_id, name) VALUES ${campaigns.join(', ')}`, `INSERT INTO costs (id, org_id, campaign_id, day, spend, currency) VALUES ${costs.join(', ')}`];
}

const POSTGRES_ONLY = [
  `INSERT INTO organizations (id, name) VALUES ('${ORG}', 'Bench')`,
  `INSERT INTO apps (id, org_id, name, platform, sdk_key, sdk_key_hash) VALUES ('${APP}', '${ORG}', 'App', 'android', 'sk_bench', 'bench')`,
];

const database = await throwawayDatabase();
try {
  const setup = openPostgres(database.url, { max: 1 });
  await migrate(setup);
  await setup.close();
  const file = join(scratchDir('pivot'), 'analytics.duckdb');
  const duckSeedSeconds = await seedDuck(database.url, file, smallRows(), duckSeed, COUNTS, log);
  const seedSeconds = await seedPostgres(database.url, [...POSTGRES_ONLY, ...smallRows()], postgresSeed, COUNTS, log);

  const params = pivotParams({ orgId: ORG, from: FROM, to: TO });
  const memoryMb = Number(process.env.MIRROR_MEMORY_MB ?? DEFAULT_MIRROR_MEMORY_MB);
  // The node's setting (MIRROR_THREADS, default 1), and every core, as Postgres's parallel query uses them.
  const threadCounts = [...new Set([Number(process.env.MIRROR_THREADS ?? DEFAULT_MIRROR_THREADS), navigator.hardwareConcurrency])];
  const loadBefore = loadavg()[0]!;
  const db = openPostgres(database.url, { max: 1 });
  const duck: { threads: number; ms: number[]; result: Record<string, unknown>[] }[] = [];
  for (const threads of threadCounts) {
    const mirror = await createMirror({ db, path: file, intervalMs: 0, memoryMb, threads, log: () => {} });
    duck.push({ threads, ...(await timed(RUNS, () => mirror.query<Record<string, unknown>>(PIVOT_SQL, params))) });
    await mirror.stop();
  }
  const pg = await timed(RUNS, () => db.query<Record<string, unknown>>(PIVOT_SQL, params));
  const workers = await parallelWorkers(db);
  await db.close();

  const pgRows = JSON.stringify(pg.result.map(toPivotRow));
  const pgMs = median(pg.ms);
  const runs = duck.map(({ threads, ms, result }) => {
    const duckMs = median(ms);
    const ratio = Math.round((pgMs / duckMs) * 10) / 10;
    const sameResult = JSON.stringify(result.map(toPivotRow)) === pgRows;
    return { threads, median_ms: duckMs, runs_ms: ms, ratio, same_result: sameResult, met: sameResult && duckMs <= TARGET_DUCKDB_MS && ratio >= TARGET_RATIO };
  });
  const rows = duck[0]!.result.map(toPivotRow);
  console.log(JSON.stringify({
    bench: 'pivot',
    ...COUNTS,
    costs: CAMPAIGNS * DAYS,
    days: DAYS,
    rows: rows.length,
    clicks_counted: rows.reduce((sum, row) => sum + row.clicks, 0),
    mirror_memory_mb: memoryMb,
    duckdb: runs,
    postgres: { median_ms: pgMs, runs_ms: pg.ms, max_parallel_workers_per_gather: workers },
    target: { duckdb_ms: TARGET_DUCKDB_MS, ratio: TARGET_RATIO },
    load_avg: [Math.round(loadBefore * 100) / 100, Math.round(loadavg()[0]! * 100) / 100],
    seed_s: Math.round(seedSeconds * 10) / 10,
    duckdb_seed_s: Math.round(duckSeedSeconds * 10) / 10,
  }));
} finally {
  await dropUnlessKept(database, log);
}
