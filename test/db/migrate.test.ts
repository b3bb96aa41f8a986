import { describe, expect, test } from 'bun:test';
import { migrate, readMigrations } from '../../src/db/migrate';
import { backends, createPostgres } from '../support/db';
import { openPglite } from '../../src/db/pglite';
import { eventually } from '../support/wait';

for (const backend of backends()) {
  describe(`migrations on ${backend.name}`, () => {
    test('a migrated database has every core table and records each migration once', async () => {
      const db = await backend.create();
      const tables = await db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      const names = tables.map((t) => t.table_name);
      for (const table of ['organizations', 'users', 'api_keys', 'apps', 'campaigns', 'links', 'clicks', 'impressions', 'conversions', 'costs', 'installs', 'events', 'subscriptions', 'audit_log']) {
        expect(names).toContain(table);
      }
      const applied = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(applied.length).toBeGreaterThan(0);
      expect(await migrate(db)).toEqual([]);
    });

    test('bulkInsert writes many rows in one call and honours the conflict clause', async () => {
      const db = await backend.create();
      await db.query("INSERT INTO organizations (id, name) VALUES ('o1', 'one')");
      const rows = Array.from({ length: 250 }, (_, i) => [`k${i}`, 'o1', `n${i}`, `p${i}`, `h${i}`]);
      expect(await db.bulkInsert('api_keys', ['id', 'org_id', 'name', 'prefix', 'key_hash'], rows)).toBe(250);
      expect(await db.bulkInsert('api_keys', ['id', 'org_id', 'name', 'prefix', 'key_hash'], rows.slice(0, 10), 'ON CONFLICT DO NOTHING')).toBe(0);
      const [count] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
      expect(count?.n).toBe(250);
    });

    test('a failed transaction changes nothing', async () => {
      const db = await backend.create();
      await expect(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO organizations (id, name) VALUES ('o2', 'two')");
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await db.query("SELECT id FROM organizations WHERE id = 'o2'")).toEqual([]);
    });

    test('listen receives what notify sends', async () => {
      const db = await backend.create();
      const received: string[] = [];
      const stop = await db.listen('svc_test_channel', (payload) => received.push(payload));
      await db.notify('svc_test_channel', 'hello');
      await eventually(() => received.length > 0);
      await stop();
      expect(received).toEqual(['hello']);
    });
  });
}

if (process.env.DATABASE_URL) {
  test('two instances migrating one Postgres database at once apply each migration exactly once', async () => {
    const { db: first, url } = await createPostgres({ migrated: false });
    const { openPostgres } = await import('../../src/db/postgres');
    const second = openPostgres(url, { max: 2 });
    const [a, b] = await Promise.all([migrate(first), migrate(second)]);
    await second.close();
    expect(a.length + b.length).toBe((await first.query('SELECT 1 FROM schema_migrations')).length);
    expect(Math.min(a.length, b.length)).toBe(0);
  });
}

test('an in-memory PGlite migrates from empty', async () => {
  const db = await openPglite();
  expect((await migrate(db)).length).toBeGreaterThan(0);
  await db.close();
});

test('progress names each pending migration with its place and the pending count, and nothing once applied', async () => {
  const db = await openPglite();
  const all = readMigrations();
  const firstRun = all.slice(0, 3);
  const told: string[] = [];
  const tell = ({ name, index, pending }: { name: string; index: number; pending: number }) => told.push(`${index}/${pending} ${name}`);
  await migrate(db, firstRun, tell);
  expect(told).toEqual(firstRun.map((migration, i) => `${i + 1}/3 ${migration.name}`));
  told.length = 0;
  const applied = await migrate(db, all, tell);
  expect(told).toEqual(all.slice(3).map((migration, i) => `${i + 1}/${all.length - 3} ${migration.name}`));
  expect(applied).toEqual(all.slice(3).map((migration) => migration.name));
  told.length = 0;
  expect(await migrate(db, all, tell)).toEqual([]);
  expect(told).toEqual([]);
  await db.close();
});

for (const backend of backends()) {
  test(`json parameters passed as serialised text are stored as documents on ${backend.name}`, async () => {
    const db = await backend.create();
    await db.query("INSERT INTO organizations (id, name) VALUES ('oj', 'json')");
    await db.query(
      "INSERT INTO audit_log (id, org_id, action, entity, detail) VALUES ('aj', 'oj', 'create', 'thing', $1::jsonb)",
      [JSON.stringify({ a: 1, b: ['x'] })],
    );
    const [row] = await db.query<{ kind: string; detail: unknown }>("SELECT jsonb_typeof(detail) AS kind, detail FROM audit_log WHERE id = 'aj'");
    expect(row?.kind).toBe('object');
    expect(row?.detail).toEqual({ a: 1, b: ['x'] });
  });
}
