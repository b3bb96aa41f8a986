/**
 * The integer key the cohort report joins events to installs on (sql/0114_install_keys.sql):
 * the store fills it on every path that writes or links an event, and for events written before
 * the migration, so the report on the key finds exactly what a join on the text id would.
 */
import { describe, expect, test } from 'bun:test';
import type { Db } from '../../../src/db/db';
import { migrate, readMigrations } from '../../../src/db/migrate';
import { openPglite } from '../../../src/db/pglite';
import { newId } from '../../../src/shared/ids';
import { insertEvents, type EventRow } from '../../../src/sdk/sdk.repo';
import { backends, createPostgres } from '../../support/db';
import { event, install, reportingOrg } from './support';

const KEYS_MIGRATION = 114;

const eventRow = (orgId: string, appId: string, installId: string | null): EventRow => ({
  id: newId(), orgId, appId, installId, deviceIdHash: null, name: 'session_start', value: null, currency: null, params: null, occurredAt: new Date(), region: null,
});

async function keyOfInstall(db: Db, id: string): Promise<string> {
  const [row] = await db.query<{ install_key: string }>('SELECT install_key::text FROM installs WHERE id = $1', [id]);
  return row!.install_key;
}

async function keyOfEvent(db: Db, id: string): Promise<string | null> {
  const [row] = await db.query<{ install_key: string | null }>('SELECT install_key::text FROM events WHERE id = $1', [id]);
  return row!.install_key;
}

for (const backend of backends()) {
  describe(`events carry their install's key on ${backend.name}`, () => {
    test('a batch insert: each event gets its own install key; an event with no install gets none', async () => {
      const db = await backend.create();
      const { orgId, appId } = await reportingOrg(db);
      const a = await install(db, { orgId, appId, at: '2026-03-10T08:00:00Z' });
      const b = await install(db, { orgId, appId, at: '2026-03-10T09:00:00Z' });
      const rows = [eventRow(orgId, appId, a), eventRow(orgId, appId, b), eventRow(orgId, appId, null)];
      await insertEvents(db, rows);
      expect(await keyOfInstall(db, a)).not.toBe(await keyOfInstall(db, b));
      expect(await keyOfEvent(db, rows[0]!.id)).toBe(await keyOfInstall(db, a));
      expect(await keyOfEvent(db, rows[1]!.id)).toBe(await keyOfInstall(db, b));
      expect(await keyOfEvent(db, rows[2]!.id)).toBeNull();
    });

    test('a key a writer passes is not trusted: the store looks it up', async () => {
      const db = await backend.create();
      const { orgId, appId } = await reportingOrg(db);
      const a = await install(db, { orgId, appId, at: '2026-03-10T08:00:00Z' });
      const id = newId();
      await db.query(
        `INSERT INTO events (id, org_id, app_id, install_id, install_key, device_id_hash, name, occurred_at) VALUES ($1, $2, $3, $4, 999999, 'd', 'session_start', now())`,
        [id, orgId, appId, a],
      );
      expect(await keyOfEvent(db, id)).toBe(await keyOfInstall(db, a));
    });

    test('an event linked to its install later gets the key; relinked, the new one; unlinked, none', async () => {
      const db = await backend.create();
      const { orgId, appId } = await reportingOrg(db);
      const a = await install(db, { orgId, appId, at: '2026-03-10T08:00:00Z' });
      const b = await install(db, { orgId, appId, at: '2026-03-10T09:00:00Z' });
      const row = eventRow(orgId, appId, null);
      await insertEvents(db, [row]);
      await db.query('UPDATE events SET install_id = $2 WHERE id = $1', [row.id, a]);
      expect(await keyOfEvent(db, row.id)).toBe(await keyOfInstall(db, a));
      await db.query('UPDATE events SET install_id = $2 WHERE id = $1', [row.id, b]);
      expect(await keyOfEvent(db, row.id)).toBe(await keyOfInstall(db, b));
      await db.query('UPDATE events SET install_id = NULL WHERE id = $1', [row.id]);
      expect(await keyOfEvent(db, row.id)).toBeNull();
    });
  });
}

async function unmigrated(name: string): Promise<Db> {
  return name === 'pglite' ? openPglite() : (await createPostgres({ migrated: false })).db;
}

for (const backend of backends()) {
  test(`events written before the keys existed get them from the migration on ${backend.name}`, async () => {
    const db = await unmigrated(backend.name);
    try {
      const all = readMigrations();
      await migrate(db, all.filter((m) => m.version < KEYS_MIGRATION));
      const { orgId, appId } = await reportingOrg(db);
      const a = await install(db, { orgId, appId, at: '2026-03-10T08:00:00Z' });
      await event(db, { orgId, appId, installId: a, name: 'session_start', at: '2026-03-10T08:01:00Z' });
      await event(db, { orgId, appId, installId: null, name: 'purchase', value: 1, currency: 'EUR', at: '2026-03-10T08:02:00Z' });
      await migrate(db, all);
      const rows = await db.query<{ install_id: string | null; same: boolean | null }>(
        `SELECT e.install_id, e.install_key = i.install_key AS same FROM events e LEFT JOIN installs i ON i.id = e.install_id ORDER BY e.install_id NULLS LAST`,
      );
      expect(rows).toEqual([{ install_id: a, same: true }, { install_id: null, same: null }]);
    } finally {
      if (backend.name === 'pglite') await db.close();
    }
  });
}
