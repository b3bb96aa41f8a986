/**
 * Ingest into day partitions: BENCH_CLICKS clicks (50,000,000 by default) written through the
 * click writer (src/tracking/pipeline/click-writer.ts, COPY side by side on a pool) into a
 * partitioned Postgres, their ids spread over BENCH_DAYS days in time order as a node writes
 * them day after day. Then a retention pass over 30 day partitions of BENCH_RETENTION_ROWS
 * clicks each. Prints one JSON line: the rate in each tenth of the ingest, the last tenth's rate
 * over the first's, the largest day partition's index size, the retention pass's time on the
 * main thread, the WAL written per click (the cluster's counter: quiet servers only), and the load
 * average beside them (the machine is shared: figures, not targets).
 *
 *   npm run bench:ingest
 *   BENCH_CLICKS=500000 BENCH_DAYS=10 BENCH_BATCH=4096 BENCH_RETENTION_ROWS=2000 npm run bench:ingest   (a quick run)
 *   DATABASE_URL=postgres://... (default: the local server), BENCH_KEEP=1 keeps the database
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../src/db/db';
import { migrate } from '../src/db/migrate';
import { openPostgres } from '../src/db/postgres';
import { dayRange, utcDayStart } from '../src/partitions/day-range';
import { listPartitions } from '../src/partitions/partitions.repo';
import { ensureDayPartitions } from '../src/partitions/partitions.service';
import { runRetention } from '../src/partitions/retention.service';
import { clickTombstonesOf } from '../src/tracking/pipeline/click-tombstones';
import { createClickWriter } from '../src/tracking/pipeline/click-writer';
import { ulid } from 'ulid';
import { removeScratch, scratchDir } from './scratch-dir';
import { dropUnlessKept, throwawayDatabase } from './throwaway-database';

const CLICKS = Number(process.env.BENCH_CLICKS ?? 50_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 10);
const BATCH = Number(process.env.BENCH_BATCH ?? 4096);
const RETENTION_ROWS = Number(process.env.BENCH_RETENTION_ROWS ?? 20_000);
const RETENTION_PARTITIONS = 30;
const DAY = 86_400_000;
const ORG = '01M8BMMCT5AGT4P0SBW6A7NBXZ';
const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const load = () => round(loadavg()[0]!);

/** A click as the journal holds it, minted at `ms`. */
function line(ms: number, n: number): string {
  return JSON.stringify({
    k: 'c',
    r: {
      id: ulid(ms), org_id: ORG, link_id: '01M8BMMCWZ97EEHNBJ3KEM142W', campaign_id: `cmp_${n % 20}`, created_at: new Date(ms).toISOString(),
      next_hop_url: 'https://landing.example.com/p?a=1', ip: `10.${n % 250}.${(n >> 8) % 250}.1`, latency_ms: 0,
      user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)', params: { utm_source: 'bench' },
      risk_score: 0, risk_reasons: [], is_bot: false, transparent_param_present: false, force_transparent: false,
    },
  });
}

async function ingest(db: Db, start: number) {
  const scratch = scratchDir('ingest');
  const writer = createClickWriter({ db, enrich: (click) => click, setAsidePath: join(scratch, 'refused.jsonl') });
  await clickTombstonesOf(db).load();
  const encoder = new TextEncoder();
  const tenth = Math.ceil(CLICKS / 10);
  const perClickMs = (DAYS * DAY) / CLICKS;
  const tenths: { rows_per_second: number; load_avg: number }[] = [];
  let written = 0;
  let sliceRows = 0;
  let sliceStarted = performance.now();
  while (written < CLICKS) {
    const count = Math.min(BATCH, CLICKS - written);
    const lines: string[] = [];
    for (let i = 0; i < count; i++) lines.push(line(start + Math.floor((written + i) * perClickMs), written + i));
    await writer.write(encoder.encode(lines.join('\n')), count);
    written += count;
    sliceRows += count;
    if (Math.floor(written / tenth) > tenths.length || written === CLICKS) {
      tenths.push({ rows_per_second: Math.round(sliceRows / ((performance.now() - sliceStarted) / 1000)), load_avg: load() });
      log(`${written} clicks, ${tenths.at(-1)!.rows_per_second} rows/s`);
      sliceStarted = performance.now();
      sliceRows = 0;
    }
  }
  await writer.close();
  removeScratch(scratch);
  return tenths;
}

async function largestDayIndex(db: Db) {
  const sizes = await db.query<{ name: string; bytes: number; rows: number }>(
    `SELECT c.relname AS name, pg_indexes_size(c.oid)::bigint AS bytes, c.reltuples::bigint AS rows
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'clicks'::regclass AND c.relname LIKE 'clicks_d%'`,
  );
  const largest = sizes.reduce((a, b) => (Number(b.bytes) > Number(a.bytes) ? b : a), sizes[0]!);
  return { partition: largest.name, index_bytes: Number(largest.bytes), bytes_per_row: largest.rows > 0 ? round(Number(largest.bytes) / Number(largest.rows), 1) : null };
}

/**
 * 30 day partitions of RETENTION_ROWS clicks, the days before the ingest's (and after the legacy
 * partition's), then one pass whose cutoff is the ingest's first day: it drops all 30.
 */
async function retentionPass(db: Db, start: number) {
  const first = start - RETENTION_PARTITIONS * DAY;
  await ensureDayPartitions({ db, now: new Date(first) }, RETENTION_PARTITIONS - 1);
  await db.query(
    `INSERT INTO clicks (id, org_id, campaign_id, created_at, next_hop_url)
     SELECT svc_ulid_prefix(at) || lpad(g::text, 16, '0'), $1, 'cmp_' || (g % 20), at, 'x'
       FROM generate_series(0, $2::int * $3::int - 1) AS g,
            LATERAL (SELECT $4::timestamptz + (g / $2::int) * interval '1 day' + (g % $2::int) * interval '1 millisecond' AS at) t`,
    [ORG, RETENTION_ROWS, RETENTION_PARTITIONS, new Date(first).toISOString()],
  );
  const before = (await listPartitions(db, 'clicks')).length;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const [result] = await runRetention({ db, now: new Date(start), policy: { clicks: 0 } });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    partitions_dropped: result!.dropped.filter((name) => name.startsWith('clicks_d')).length,
    partitions_before: before,
    rows_per_partition: RETENTION_ROWS,
    wall_ms: Math.round(wallMs),
    main_thread_cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    load_avg: load(),
  };
}

const database = await throwawayDatabase();
const db = openPostgres(database.url, { max: 8 });
try {
  await migrate(db);
  // Tomorrow is the first day a partition can be made for (sql/0119); the 30 days of the retention pass come first.
  const start = utcDayStart(new Date(), 1 + RETENTION_PARTITIONS);
  await ensureDayPartitions({ db, now: new Date(start) }, DAYS);
  const loadBefore = load();
  // The WAL position is the cluster's: other work on the same server moves it too (load_avg says how quiet it was).
  const [walBefore] = await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  const tenths = await ingest(db, start);
  const [wal] = await db.query<{ bytes: number }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint AS bytes', [walBefore!.lsn]);
  await db.query('ANALYZE clicks');
  const largest = await largestDayIndex(db);
  const retention = await retentionPass(db, start);
  const first = tenths[0]!.rows_per_second;
  const last = tenths.at(-1)!.rows_per_second;
  console.log(JSON.stringify({
    bench: 'ingest',
    clicks: CLICKS,
    days: DAYS,
    batch: BATCH,
    first_day: dayRange(start).day,
    rows_per_second_by_tenth: tenths.map((t) => t.rows_per_second),
    last_over_first: round(last / first),
    wal_bytes_per_click: round(Number(wal!.bytes) / CLICKS, 1),
    largest_day_partition: largest,
    retention,
    load_avg: { before: loadBefore, by_tenth: tenths.map((t) => t.load_avg) },
  }));
} finally {
  await db.close();
  await dropUnlessKept(database, log);
}
