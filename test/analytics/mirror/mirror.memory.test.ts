import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { applyBatch, type Batch, type Mirror } from '../../../src/analytics/mirror/mirror';
import { createCursorTable, CURSOR_SEQ, CURSOR_TXID, describeTable, syncDuckTable } from '../../../src/analytics/mirror/mirror-schema';
import { DEFAULT_MIRROR_MEMORY_MB, DEFAULT_MIRROR_THREADS } from '../../../src/config/defaults';
import type { Db, Queryable } from '../../../src/db/db';
import { newId } from '../../../src/shared/ids';
import { testApp } from '../../support/app';
import { backends, createPostgres } from '../../support/db';
import { newOrg, testMirror } from './mirror.helpers';

/*
 * What the mirror holds in memory: DuckDB within MIRROR_MEMORY_MB and MIRROR_THREADS, and a copy
 * that holds one batch at a time however many rows it copies (docs/analytics-mirror.md, "Memory").
 */

// Database boots and DuckDB files on a shared, loaded machine; no assertion depends on time.
setDefaultTimeout(60_000);

async function duckSettings(mirror: Mirror): Promise<{ memory: string; threads: number }> {
  const [row] = await mirror.query<{ memory: string; threads: number }>(
    "SELECT current_setting('memory_limit') AS memory, current_setting('threads') AS threads",
  );
  return row!;
}

/** Clicks with a real click's longer text columns, so a batch fills several DuckDB blocks. */
async function insertClicks(db: Db, org: string, count: number) {
  const userAgent = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
  const rows = Array.from({ length: count }, (_, i) => [newId(), org, new Date(), `https://landing.example.com/p?a=1&b=two&n=${i}`, userAgent, `gclid-${i}`.padEnd(96, 'x')]);
  await db.bulkInsert('clicks', ['id', 'org_id', 'created_at', 'next_hop_url', 'user_agent', 'gclid'], rows);
}

for (const backend of backends()) {
  describe(`analytics mirror memory on ${backend.name}`, async () => {
    const db = await backend.create();

    test('DuckDB opens with the memory limit and threads it is given, and with the documented defaults otherwise', async () => {
      expect(await duckSettings(await testMirror({ db, memoryMb: 96, threads: 2 }))).toEqual({ memory: '96.0 MiB', threads: 2 });
      expect(await duckSettings(await testMirror({ db }))).toEqual({ memory: `${DEFAULT_MIRROR_MEMORY_MB}.0 MiB`, threads: DEFAULT_MIRROR_THREADS });
      expect(DEFAULT_MIRROR_MEMORY_MB).toBe(256);
    });

    test("the node's mirror takes MIRROR_MEMORY_MB and MIRROR_THREADS from its configuration", async () => {
      const { services } = await testApp(db, { MIRROR_INTERVAL_MS: '0', MIRROR_MEMORY_MB: '80', MIRROR_THREADS: '3' });
      expect(await duckSettings(services.mirror)).toEqual({ memory: '80.0 MiB', threads: 3 });
    });

    test('a copy reads bounded batches, one at a time, however many rows are waiting', async () => {
      const batchSize = 50;
      const reads: { limit: unknown; rows: number }[] = [];
      let inFlight = 0;
      let mostInFlight = 0;
      const counted: Queryable = {
        async query(text, params, options) {
          if (!text.includes('mirror_cursor_txid')) return db.query(text, params, options);
          mostInFlight = Math.max(mostInFlight, ++inFlight);
          try {
            const rows = await db.query(text, params, options);
            reads.push({ limit: params?.[2], rows: rows.length });
            return rows as never;
          } finally {
            inFlight--;
          }
        },
        exec: (script) => db.exec(script),
      };
      const mirror = await testMirror({ db: counted, batchSize, tables: ['clicks'] });
      await mirror.catchUp();
      reads.length = 0;
      const org = newOrg();
      await insertClicks(db, org, 7 * batchSize + 3);
      expect(await mirror.catchUp()).toBe(7 * batchSize + 3);
      expect(reads.length).toBeGreaterThanOrEqual(8);
      for (const read of reads) {
        expect(read.limit).toBe(batchSize);
        expect(read.rows).toBeLessThanOrEqual(batchSize);
      }
      // The next batch is read while DuckDB writes the current one: never more than that.
      expect(mostInFlight).toBe(1);
    });

    test('the staging table holds one batch, not every row copied through it', async () => {
      const table = await describeTable(db, 'clicks');
      const instance = await DuckDBInstance.create(':memory:');
      const duck = await instance.connect();
      try {
        await createCursorTable(duck);
        await syncDuckTable(duck, table);
        const batchSize = 100;
        const batch = (from: number): Batch =>
          Array.from({ length: batchSize }, (_, i) => ({ id: newId(), org_id: 'org_staging', [CURSOR_TXID]: '1', [CURSOR_SEQ]: String(from + i) }));
        for (let b = 0; b < 12; b++) await applyBatch(duck, table, batch(b * batchSize));
        const size = async (name: string) =>
          Number((await duck.runAndReadAll('SELECT estimated_size AS n FROM duckdb_tables() WHERE table_name = $1', [name])).getRowObjectsJS()[0]!.n);
        // Twelve batches went through it; it holds the last one only (deleted rows count too).
        expect(await size(table.stageTable)).toBeLessThanOrEqual(batchSize);
        expect(await size('clicks')).toBe(12 * batchSize);
      } finally {
        duck.closeSync();
        instance.closeSync();
      }
    });
  });
}

if (process.env.DATABASE_URL) {
  describe('analytics mirror memory on its thread (postgres)', async () => {
    const { db, url } = await createPostgres();

    test("the mirror thread opens DuckDB with the node's MIRROR_MEMORY_MB and MIRROR_THREADS", async () => {
      const { services } = await testApp(db, { DATABASE_URL: url, MIRROR_INTERVAL_MS: '0', MIRROR_MEMORY_MB: '72', MIRROR_THREADS: '2' });
      expect(await duckSettings(services.mirror)).toEqual({ memory: '72.0 MiB', threads: 2 });
    });
  });
}
