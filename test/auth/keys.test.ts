import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { authenticateApiKey } from '../../src/auth/api-keys';
import { sha256Hex } from '../../src/shared/crypto/secrets';
import { newId } from '../../src/shared/ids';
import { body, testApp, type TestApp } from '../support/app';
import { backends } from '../support/db';
import { eventually } from '../support/wait';
import { cookieOf } from '../support/http';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine (the import above
// covers the shared cleanup hooks; this covers the tests of this file).
setDefaultTimeout(120_000);



/** A user (and organization) signed in through the real /register route. */
async function signedIn(t: TestApp) {
  const res = await t.request('/register', {
    method: 'POST',
    json: { email: `u${newId().toLowerCase()}@example.com`, password: 'correct horse', organization: 'Acme' },
  });
  const { user_id: userId, org_id: orgId } = await body(res);
  return { userId, orgId, cookie: cookieOf(res) };
}

for (const backend of backends()) {
  describe(`dashboard API keys on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const create = (cookie: string, name = 'server') => t.request('/api/dashboard/keys', { method: 'POST', headers: { cookie }, json: { name } });
    const list = async (cookie: string) => (await body(await t.request('/api/dashboard/keys', { headers: { cookie } }))).data as Record<string, unknown>[];
    const revoke = (cookie: string, id: string) => t.request(`/api/dashboard/keys/${id}`, { method: 'DELETE', headers: { cookie } });

    describe('happy', () => {
      test('create answers 201 {id, name, prefix, api_key}; the key authenticates for its organization', async () => {
        const user = await signedIn(t);
        const res = await create(user.cookie, 'billing export');
        expect(res.status).toBe(201);
        const key = await body(res);
        expect(Object.keys(key).sort()).toEqual(['api_key', 'id', 'name', 'prefix', 'rate_limit_per_minute']);
        expect(key.rate_limit_per_minute).toBeNull();
        expect(key.name).toBe('billing export');
        expect(key.api_key).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
        expect(key.prefix).toBe(key.api_key.slice(0, 17));
        expect(await authenticateApiKey(db, key.api_key)).toEqual({ keyId: key.id, orgId: user.orgId, rateLimitPerMinute: null });
      });

      test('list shows {id,name,prefix,rate_limit_per_minute,created_at,last_used_at,revoked_at}, newest first, never the key', async () => {
        const user = await signedIn(t);
        const first = await body(await create(user.cookie, 'one'));
        const second = await body(await create(user.cookie, 'two'));
        await authenticateApiKey(db, first.api_key);
        const rows = await list(user.cookie);
        expect(rows.map((row) => row.id)).toEqual([second.id, first.id]);
        for (const row of rows) {
          expect(Object.keys(row).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'rate_limit_per_minute', 'revoked_at']);
          expect(Number.isNaN(Date.parse(row.created_at as string))).toBe(false);
          expect(row.revoked_at).toBeNull();
        }
        expect(JSON.stringify(rows)).not.toContain(first.api_key);
        expect(JSON.stringify(rows)).not.toContain(sha256Hex(first.api_key));
        // last_used_at is written in the background; wait for it rather than assume.
        await eventually(async () => (await list(user.cookie))[1]!.last_used_at !== null);
        expect((await list(user.cookie))[1]!.last_used_at).not.toBeNull();
      });

      test('delete revokes: the key answers 401 at once and the listing shows revoked_at', async () => {
        const user = await signedIn(t);
        const key = await body(await create(user.cookie));
        const res = await revoke(user.cookie, key.id);
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ ok: true, id: key.id });
        expect(await authenticateApiKey(db, key.api_key)).toBeNull();
        const [row] = await list(user.cookie);
        expect(row!.revoked_at).not.toBeNull();
      });

      test('create and revoke each write an audit row naming the user', async () => {
        const user = await signedIn(t);
        const key = await body(await create(user.cookie));
        await revoke(user.cookie, key.id);
        const audit = await db.query<{ action: string; entity: string; entity_id: string; user_id: string; api_key_id: string | null }>(
          'SELECT action, entity, entity_id, user_id, api_key_id FROM audit_log WHERE org_id = $1 ORDER BY id',
          [user.orgId],
        );
        expect(audit).toEqual([
          { action: 'create', entity: 'api_key', entity_id: key.id, user_id: user.userId, api_key_id: null },
          { action: 'revoke', entity: 'api_key', entity_id: key.id, user_id: user.userId, api_key_id: null },
        ]);
      });
    });

    describe('errors', () => {
      test('a missing or empty name answers 400 and creates nothing', async () => {
        const user = await signedIn(t);
        for (const json of [{}, { name: '' }, { name: 'x'.repeat(101) }]) {
          const res = await t.request('/api/dashboard/keys', { method: 'POST', headers: { cookie: user.cookie }, json });
          expect(res.status).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['name']);
        }
        expect(await list(user.cookie)).toEqual([]);
      });

      test('revoking an unknown or already revoked key answers 404', async () => {
        const user = await signedIn(t);
        expect((await revoke(user.cookie, 'no-such-key')).status).toBe(404);
        const key = await body(await create(user.cookie));
        expect((await revoke(user.cookie, key.id)).status).toBe(200);
        const again = await revoke(user.cookie, key.id);
        expect(again.status).toBe(404);
        expect(await body(again)).toEqual({ error: 'key not found' });
      });

      test('without a session every keys endpoint answers 401', async () => {
        const user = await signedIn(t);
        const key = await body(await create(user.cookie));
        for (const res of [
          await t.request('/api/dashboard/keys'),
          await t.request('/api/dashboard/keys', { method: 'POST', json: { name: 'x' } }),
          await t.request(`/api/dashboard/keys/${key.id}`, { method: 'DELETE' }),
        ]) {
          expect(res.status).toBe(401);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
        expect(await authenticateApiKey(db, key.api_key)).not.toBeNull();
      });
    });

    describe('security', () => {
      test("organization B's session can neither list nor revoke organization A's keys", async () => {
        const a = await signedIn(t);
        const b = await signedIn(t);
        const key = await body(await create(a.cookie));
        expect(await list(b.cookie)).toEqual([]);
        const res = await revoke(b.cookie, key.id);
        expect(res.status).toBe(404);
        expect(await authenticateApiKey(db, key.api_key)).not.toBeNull();
        expect((await list(a.cookie))[0]!.revoked_at).toBeNull();
        expect(await db.query("SELECT 1 FROM audit_log WHERE org_id = $1 AND action = 'revoke'", [b.orgId])).toEqual([]);
      });

      test('the stored hash is the SHA-256 of the key, and the clear key appears in no column of api_keys or audit_log', async () => {
        const user = await signedIn(t);
        const key = await body(await create(user.cookie));
        await revoke(user.cookie, key.id);
        const [stored] = await db.query<{ key_hash: string; prefix: string }>('SELECT key_hash, prefix FROM api_keys WHERE id = $1', [key.id]);
        expect(stored!.key_hash).toBe(sha256Hex(key.api_key));
        expect(stored!.prefix).toBe(key.prefix);
        const secretPart = key.api_key.slice(key.prefix.length);
        for (const table of ['api_keys', 'audit_log']) {
          const columns = await db.query<{ column_name: string }>(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
            [table],
          );
          expect(columns.length).toBeGreaterThan(3);
          for (const { column_name: column } of columns) {
            const hits = await db.query(`SELECT 1 FROM ${table} WHERE ${column}::text LIKE '%' || $1 || '%'`, [secretPart]);
            expect(hits).toEqual([]);
          }
        }
      });

      test('a key revoked on one instance answers 401 at once on a second instance sharing the database', async () => {
        const other = await testApp(db, {}, { mirror: false, workers: false });
        const user = await signedIn(t);
        const key = await body(await create(user.cookie));
        expect(await authenticateApiKey(other.db, key.api_key)).not.toBeNull();
        expect((await revoke(user.cookie, key.id)).status).toBe(200);
        expect(await authenticateApiKey(other.db, key.api_key)).toBeNull();
      });
    });
  });
}
