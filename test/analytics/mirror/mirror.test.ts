import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { MIRRORED_TABLES } from '../../../src/analytics/mirror/mirror-tables';
import { newId } from '../../../src/shared/ids';
import { insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { countFor, newOrg, tempDuckFile, testMirror } from './mirror.helpers';

// Database boots and DuckDB files on a shared, loaded machine (hooks too); no assertion depends on time.
setDefaultTimeout(30_000);

for (const backend of backends()) {
  describe(`analytics mirror on ${backend.name}`, async () => {
    const db = await backend.create();

    test('creates every registered table and copies new rows with exact values', async () => {
      const org = newOrg();
      const mirror = await testMirror({ db });
      const clickId = newId();
      await db.query(
        `INSERT INTO clicks (id, org_id, created_at, next_hop_url, is_bot, latency_ms, params, route)
         VALUES ($1, $2, '2024-05-01 10:00:00.123456+02', 'https://example.com/a', true, 17, '{"utm_source": "news"}',
                 '{"rule_index": 3, "rule_name": "ab", "action": "variants", "variant_index": 1, "page": null}')`,
        [clickId, org],
      );
      const conversionId = newId();
      await db.query(
        `INSERT INTO conversions (id, org_id, event_name, value, currency, source) VALUES ($1, $2, 'purchase', 12345678901234.5678, 'EUR', 'api')`,
        [conversionId, org],
      );
      expect(await mirror.catchUp()).toBeGreaterThanOrEqual(2);

      const tables = await mirror.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE'",
      );
      for (const table of MIRRORED_TABLES) expect(tables.map((t) => t.table_name)).toContain(table);

      const [click] = await mirror.query<Record<string, unknown>>(
        `SELECT epoch_us(created_at) AS micros, is_bot, latency_ms, json_extract_string(params, '$.utm_source') AS source, next_hop_url,
                json_extract_string(route, '$.action') AS action, CAST(json_extract(route, '$.variant_index') AS INTEGER) AS variant
           FROM clicks WHERE id = $1`,
        [clickId],
      );
      expect(click).toEqual({
        micros: Date.UTC(2024, 4, 1, 8, 0, 0, 123) * 1000 + 456,
        is_bot: true,
        latency_ms: 17,
        source: 'news',
        next_hop_url: 'https://example.com/a',
        action: 'variants',
        variant: 1,
      });
      const [conversion] = await mirror.query<Record<string, unknown>>(
        'SELECT value::VARCHAR AS exact, currency, event_name FROM conversions WHERE id = $1',
        [conversionId],
      );
      expect(conversion).toEqual({ exact: '12345678901234.5678000000', currency: 'EUR', event_name: 'purchase' });
      // The bookkeeping columns order the copy; they are not analytics data.
      const columns = await mirror.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'clicks'",
      );
      expect(columns.map((c) => c.column_name)).not.toContain('_txid');
    });

    test('catchUp is idempotent: a second call copies nothing', async () => {
      const org = newOrg();
      const mirror = await testMirror({ db });
      await insertClick(db, { orgId: org });
      await insertClick(db, { orgId: org });
      expect(await mirror.catchUp()).toBeGreaterThanOrEqual(2);
      expect(await mirror.catchUp()).toBe(0);
      expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 2, ids: 2 });
    });

    test('copies more rows than one batch, in several batches, each once', async () => {
      const org = newOrg();
      const mirror = await testMirror({ db, batchSize: 7, tables: ['clicks'] });
      await mirror.catchUp();
      const rows = Array.from({ length: 40 }, () => [newId(), org, new Date(), 'https://example.com/b']);
      await db.bulkInsert('clicks', ['id', 'org_id', 'created_at', 'next_hop_url'], rows);
      expect(await mirror.catchUp()).toBe(40);
      expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 40, ids: 40 });
    });

    test('a restart on the same DuckDB file copies nothing twice and continues', async () => {
      const org = newOrg();
      const path = tempDuckFile();
      const first = await testMirror({ db, path });
      await insertClick(db, { orgId: org });
      await insertClick(db, { orgId: org });
      await first.catchUp();
      await first.stop();

      await insertClick(db, { orgId: org });
      const second = await testMirror({ db, path });
      expect(await countFor(second, 'clicks', org)).toEqual({ rows: 2, ids: 2 });
      expect(await second.catchUp()).toBe(1);
      expect(await countFor(second, 'clicks', org)).toEqual({ rows: 3, ids: 3 });
      const [all] = await second.query<{ rows: number; ids: number }>('SELECT count(*) AS rows, count(DISTINCT id) AS ids FROM clicks');
      expect(all!.rows).toBe(all!.ids);
    });

    test('an updated row is re-copied and replaces the old copy', async () => {
      const org = newOrg();
      const mirror = await testMirror({ db });
      const upsert = `INSERT INTO conversions (id, org_id, event_name, value, currency, order_id, source)
                      VALUES ($1, $2, 'purchase', $3, $4, 'order-1', 'api')
                      ON CONFLICT (org_id, order_id, event_name) WHERE order_id IS NOT NULL
                      DO UPDATE SET value = EXCLUDED.value, currency = EXCLUDED.currency, updated_at = now()`;
      const id = newId();
      await db.query(upsert, [id, org, 10, 'USD']);
      await mirror.catchUp();
      await db.query(upsert, [newId(), org, 25.5, 'EUR']);
      expect(await mirror.catchUp()).toBe(1);
      const rows = await mirror.query('SELECT id, value, currency FROM conversions WHERE org_id = $1', [org]);
      expect(rows).toEqual([{ id, value: 25.5, currency: 'EUR' }]);
    });

    test('the touch trigger stamps an update with the updating transaction', async () => {
      const org = newOrg();
      const id = await insertClick(db, { orgId: org });
      const stamped = await db.transaction(async (tx) => {
        await tx.query("UPDATE clicks SET drop_reason = 'bot' WHERE id = $1", [id]);
        const [row] = await tx.query<{ same: boolean }>(
          'SELECT _txid = pg_current_xact_id() AS same FROM clicks WHERE id = $1',
          [id],
        );
        return row!.same;
      });
      expect(stamped).toBe(true);
      // Tables, not their day partitions (sql/0119), which carry the trigger their parent gives them.
      const triggers = await db.query<{ event_object_table: string }>(
        `SELECT DISTINCT c.relname AS event_object_table
           FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
          WHERE p.proname = 'svc_mirror_touch' AND NOT c.relispartition`,
      );
      expect(triggers.map((t) => t.event_object_table).sort()).toEqual([...MIRRORED_TABLES].sort());
    });

    test('a batch DuckDB refuses changes nothing there, does not stop other tables, and is retried', async () => {
      const org = newOrg();
      const mirror = await testMirror({ db, tables: ['clicks', 'conversions'] });
      await mirror.catchUp();
      const before = await insertClick(db, { orgId: org });
      // Postgres accepts timestamps up to the year 294276, DuckDB only to 294247.
      const bad = newId();
      await db.query(
        `INSERT INTO clicks (id, org_id, created_at, next_hop_url) VALUES ($1, $2, '294270-01-01 00:00:00+00', 'https://example.com/far')`,
        [bad, org],
      );
      const after = await insertClick(db, { orgId: org });
      await db.query(`INSERT INTO conversions (id, org_id, event_name, source) VALUES ($1, $2, 'signup', 'api')`, [newId(), org]);

      await expect(mirror.catchUp()).rejects.toThrow();
      expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 0, ids: 0 });
      expect(await countFor(mirror, 'conversions', org)).toEqual({ rows: 1, ids: 1 });

      await db.query('UPDATE clicks SET created_at = now() WHERE id = $1', [bad]);
      expect(await mirror.catchUp()).toBe(3);
      const ids = await mirror.query<{ id: string }>('SELECT id FROM clicks WHERE org_id = $1 ORDER BY id', [org]);
      expect(ids.map((row) => row.id)).toEqual([before, bad, after].sort());
    });

    test('a rolled-back insert never reaches DuckDB', async () => {
      const org = newOrg();
      const mirror = await testMirror({ db, tables: ['clicks'] });
      await expect(
        db.transaction(async (tx) => {
          await insertClick(tx, { orgId: org });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await insertClick(db, { orgId: org });
      await mirror.catchUp();
      expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 1, ids: 1 });
    });

    test('analytics queries are read-only: writes and second statements are refused', async () => {
      const org = newOrg();
      const mirror = await testMirror({ db, tables: ['clicks'] });
      await insertClick(db, { orgId: org });
      await mirror.catchUp();
      await expect(mirror.query('DELETE FROM clicks')).rejects.toThrow();
      await expect(mirror.query("UPDATE clicks SET org_id = 'x'")).rejects.toThrow();
      await expect(mirror.query('SELECT 1; DELETE FROM clicks')).rejects.toThrow();
      await expect(mirror.query('DROP TABLE clicks')).rejects.toThrow();
      await expect(mirror.query("COPY clicks TO '/tmp/svc-mirror-leak.csv'")).rejects.toThrow();
      expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 1, ids: 1 });
    });

    test('query parameters bind as values, never as SQL', async () => {
      const org = newOrg();
      const mirror = await testMirror({ db, tables: ['clicks'] });
      await insertClick(db, { orgId: org });
      await mirror.catchUp();
      expect(await mirror.query('SELECT id FROM clicks WHERE org_id = $1', ["' OR 1=1 --"])).toEqual([]);
      const since = new Date(Date.now() - 3_600_000);
      const [row] = await mirror.query<{ n: number }>('SELECT count(*) AS n FROM clicks WHERE org_id = $1 AND created_at > $2', [org, since]);
      expect(row!.n).toBe(1);
    });

    test('a table that is not mirrorable is refused with a clear error', async () => {
      const mirror = await testMirror({ db, tables: ['organizations'] });
      await expect(mirror.catchUp()).rejects.toThrow('mirrored table organizations has no _txid column');
      await expect(testMirror({ db, tables: ['clicks; DROP TABLE clicks'] })).rejects.toThrow('not a safe SQL identifier');
    });

    test('a stop with no time left copies one batch a table; the rest is copied at the next start', async () => {
      const org = newOrg();
      const path = tempDuckFile();
      for (let i = 0; i < 5; i++) await insertClick(db, { orgId: org });
      const stopping = await testMirror({ db, path, tables: ['clicks'], batchSize: 2 });
      await stopping.stop({ budgetMs: 0 });
      const reopened = await testMirror({ db, path, tables: ['clicks'], batchSize: 2 });
      // One batch of the oldest rows not yet copied (earlier tests' rows share this database).
      expect(await reopened.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM clicks')).toEqual([{ n: 2 }]);
      await reopened.stop(); // the default budget: everything
      const complete = await testMirror({ db, path, tables: ['clicks'] });
      expect(await countFor(complete, 'clicks', org)).toEqual({ rows: 5, ids: 5 });
    });

    test('a stopped mirror refuses work', async () => {
      const mirror = await testMirror({ db, tables: ['clicks'] });
      await mirror.stop();
      await expect(mirror.catchUp()).rejects.toThrow('stopped');
      await expect(mirror.query('SELECT 1')).rejects.toThrow('stopped');
    });
  });
}
