/**
 * bun bench/mirror.ts            (PGlite in memory)
 * DATABASE_URL=postgres://... bun bench/mirror.ts   (a throwaway database on that server)
 *
 * Throughput of the analytics mirror copying N clicks from Postgres into a DuckDB file, in its
 * 5000-row batches. The reference in the same run is the read floor: the same rows fetched
 * from Postgres in 5000-row keyset pages with every column as text, which any copy pays before
 * DuckDB sees a byte. Prints one JSON line; `ratio` is mirror time over reference time.
 */
import { scratchDir } from './scratch-dir';
import { join } from 'node:path';
import { throwawayDatabase } from './throwaway-database';
import { createMirror } from '../src/analytics/mirror/mirror';
import type { Db } from '../src/db/db';
import { migrate } from '../src/db/migrate';
import { openPglite } from '../src/db/pglite';
import { openPostgres } from '../src/db/postgres';
import { newId } from '../src/shared/ids';

const N = Number(process.env.N ?? 50_000);
const BATCH = 5000;

async function openDatabase(): Promise<{ db: Db; drop: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openPglite();
    return { db, drop: () => db.close() };
  }
  const database = await throwawayDatabase({ adminUrl: url });
  const db = openPostgres(database.url);
  return {
    db,
    drop: async () => {
      await db.close();
      await database.drop();
    },
  };
}

const { db, drop } = await openDatabase();
await migrate(db);
const day = new Date('2026-09-02T10:00:00Z');
for (let start = 0; start < N; start += 10_000) {
  const rows = Array.from({ length: Math.min(10_000, N - start) }, (_, i) => [
    newId(), 'org_bench', 'link_1', day, `g${start + i}`, 'https://shop.example.com/p?x=1', 'Mozilla/5.0 (iPhone)', 'US', 'ios', (start + i) % 300,
  ]);
  await db.bulkInsert('clicks', ['id', 'org_id', 'link_id', 'created_at', 'gclid', 'next_hop_url', 'user_agent', 'country', 'os_family', 'latency_ms'], rows);
}
await db.query('ANALYZE clicks');

// Reference: the same rows, as text, in keyset pages.
const columns = (await db.query<{ column_name: string }>(
  "SELECT column_name FROM information_schema.columns WHERE table_name = 'clicks' AND column_name NOT IN ('_txid', '_seq') ORDER BY ordinal_position",
)).map((c) => `${c.column_name}::text`);
const referenceStart = performance.now();
let last = 0;
let read = 0;
for (;;) {
  const page = await db.query<{ _seq: number }>(`SELECT _seq, ${columns.join(', ')} FROM clicks WHERE _seq > $1 ORDER BY _seq LIMIT ${BATCH}`, [last]);
  if (page.length === 0) break;
  read += page.length;
  last = page[page.length - 1]!._seq;
}
const referenceMs = performance.now() - referenceStart;

const dir = scratchDir('mirror');
const mirror = await createMirror({ db, path: join(dir, 'analytics.duckdb'), tables: ['clicks'], intervalMs: 0, batchSize: BATCH });
const mirrorStart = performance.now();
const copied = await mirror.catchUp();
const mirrorMs = performance.now() - mirrorStart;
const [check] = await mirror.query<{ n: number }>('SELECT count(*) AS n FROM clicks');
const plan = await db.query<Record<string, string>>(
  "EXPLAIN SELECT 1 FROM clicks t WHERE t._txid < '1000000'::xid8 AND (t._txid, t._seq) > ('0'::xid8, 0::bigint) ORDER BY t._txid, t._seq LIMIT 5000",
);
await mirror.stop();
await drop();

console.log(JSON.stringify({
  bench: 'mirror',
  backend: db.kind,
  rows: N,
  copied,
  mirrored: check?.n,
  mirror_ms: Math.round(mirrorMs),
  mirror_rows_per_s: Math.round((copied / mirrorMs) * 1000),
  reference: 'keyset read of the same rows as text',
  reference_rows: read,
  reference_ms: Math.round(referenceMs),
  ratio: Number((mirrorMs / referenceMs).toFixed(2)),
  uses_mirror_index: plan.some((row) => Object.values(row)[0]!.includes('clicks_mirror_idx')),
}));
