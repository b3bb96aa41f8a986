import '../../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { openGoogleAds } from '../../../src/protect/sync/integrations.service';
import { findIntegration } from '../../../src/protect/sync/integrations.repo';
import { SecretBoxError } from '../../../src/shared/crypto/secret-box';
import { body, testApp } from '../../support/app';
import { backends } from '../../support/db';
import { expectSecurityHeaders } from '../../support/http';
import { registerAccount, type Account } from '../support';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine.
setDefaultTimeout(120_000);

const PATH = '/api/dashboard/integrations/google-ads';
const SECRETS = {
  developer_token: 'DevToken-Sensitive-abc123',
  client_id: '123456-sensitive.apps.googleusercontent.com',
  client_secret: 'GOCSPX-Sensitive-Client-Secret',
  refresh_token: '1//0g-Sensitive-Refresh-Token',
};
const CONNECTION = { customer_id: '123-456-7890', login_customer_id: '987-654-3210', ...SECRETS };

const expectNoSecret = (text: string) => {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
};

for (const backend of backends()) {
  describe(`${PATH} on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const put = (account: Account, json: unknown, headers: Record<string, string> = {}) => t.request(PATH, { method: 'PUT', headers: { cookie: account.cookie, ...headers }, json });
    const get = (account: Account) => t.request(PATH, { headers: { cookie: account.cookie } });
    const del = (account: Account, headers: Record<string, string> = {}) => t.request(PATH, { method: 'DELETE', headers: { cookie: account.cookie, ...headers } });
    const storedRow = async (orgId: string) => (await db.query<{ row: string }>('SELECT row_to_json(a)::text AS row FROM ad_integrations a WHERE org_id = $1', [orgId]))[0]?.row;

    describe('happy', () => {
      test('PUT connects: ids without dashes come back, secrets never do', async () => {
        const alice = await registerAccount(t);
        const res = await put(alice, CONNECTION);
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        const text = await res.text();
        expectNoSecret(text);
        const view = JSON.parse(text);
        expect(view).toEqual({ provider: 'google_ads', connected: true, customer_id: '1234567890', login_customer_id: '9876543210', updated_at: expect.any(String) });
        expect(new Date(view.updated_at).toISOString()).toBe(view.updated_at);

        const read = await get(alice);
        expect(read.status).toBe(200);
        const readText = await read.text();
        expectNoSecret(readText);
        expect(JSON.parse(readText)).toEqual(view);
      });

      test('the row holds the secrets sealed, not in clear; they open only for their organization', async () => {
        const alice = await registerAccount(t);
        expect((await put(alice, CONNECTION)).status).toBe(200);
        const row = await storedRow(alice.orgId);
        expect(row).toBeDefined();
        expectNoSecret(row!);
        const stored = (await findIntegration(db, alice.orgId, 'google_ads'))!;
        expect(stored.secrets).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
        expect(stored.settings).toEqual({ customer_id: '1234567890', login_customer_id: '9876543210' });
        expect(openGoogleAds(t.config, alice.orgId, stored)).toEqual({
          customerId: '1234567890',
          loginCustomerId: '9876543210',
          developerToken: SECRETS.developer_token,
          clientId: SECRETS.client_id,
          clientSecret: SECRETS.client_secret,
          refreshToken: SECRETS.refresh_token,
        });
        // Moved to another organization's row, the sealed value does not open.
        const bob = await registerAccount(t);
        expect(() => openGoogleAds(t.config, bob.orgId, stored)).toThrow(SecretBoxError);
        // Nor under another SESSION_SECRET.
        expect(() => openGoogleAds({ sessionSecret: 'another-session-secret-that-is-long-enough-42' }, alice.orgId, stored)).toThrow(SecretBoxError);
      });

      test('GET before any connection: the same shape, not connected', async () => {
        const alice = await registerAccount(t);
        const res = await get(alice);
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ provider: 'google_ads', connected: false, customer_id: null, login_customer_id: null, updated_at: null });
      });

      test('PUT again replaces the whole connection; login_customer_id left out clears it; each write is audited without secrets', async () => {
        const alice = await registerAccount(t);
        expect((await put(alice, CONNECTION)).status).toBe(200);
        const { login_customer_id: _dropped, ...withoutLogin } = CONNECTION;
        const res = await put(alice, { ...withoutLogin, customer_id: '5556667777', refresh_token: '1//0g-another-refresh' });
        expect(res.status).toBe(200);
        expect(await body(res)).toMatchObject({ connected: true, customer_id: '5556667777', login_customer_id: null });
        const stored = (await findIntegration(db, alice.orgId, 'google_ads'))!;
        expect(openGoogleAds(t.config, alice.orgId, stored).refreshToken).toBe('1//0g-another-refresh');
        const audit = await db.query<{ action: string; entity: string; detail: unknown; user_id: string | null }>(
          "SELECT action, entity, detail, user_id FROM audit_log WHERE org_id = $1 AND entity = 'ad_integration' ORDER BY created_at, id",
          [alice.orgId],
        );
        expect(audit.map((row) => [row.action, row.detail])).toEqual([
          ['update', { customer_id: '1234567890', login_customer_id: '9876543210' }],
          ['update', { customer_id: '5556667777', login_customer_id: null }],
        ]);
        expect(audit.every((row) => row.user_id !== null)).toBe(true);
        expectNoSecret(JSON.stringify(audit));
      });

      test('DELETE disconnects and is safe to repeat', async () => {
        const alice = await registerAccount(t);
        expect((await put(alice, CONNECTION)).status).toBe(200);
        const gone = await del(alice);
        expect(gone.status).toBe(200);
        expect(await body(gone)).toEqual({ provider: 'google_ads', connected: false, customer_id: null, login_customer_id: null, updated_at: null });
        expect(await storedRow(alice.orgId)).toBeUndefined();
        expect((await body(await get(alice))).connected).toBe(false);
        expect((await del(alice)).status).toBe(200);
        const deletes = await db.query("SELECT 1 FROM audit_log WHERE org_id = $1 AND entity = 'ad_integration' AND action = 'delete'", [alice.orgId]);
        expect(deletes.length).toBe(1);
      });
    });

    describe('error', () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['a customer id of nine digits', { customer_id: '123-456-789' }, 'customer_id'],
        ['a customer id with letters', { customer_id: '123-456-789a' }, 'customer_id'],
        ['a customer id with other separators', { customer_id: '123 456 7890' }, 'customer_id'],
        ['a login customer id of eleven digits', { login_customer_id: '12345678901' }, 'login_customer_id'],
        ['an empty refresh token', { refresh_token: '' }, 'refresh_token'],
        ['a developer token with a line break', { developer_token: 'abc\r\nX-Injected: 1' }, 'developer_token'],
        ['a client secret with a space', { client_secret: 'two words' }, 'client_secret'],
        ['a client id too long', { client_id: 'x'.repeat(1025) }, 'client_id'],
        ['a number for a token', { refresh_token: 12345 }, 'refresh_token'],
        ['an unknown field', { webhook: 'https://evil.example' }, 'webhook'],
      ];
      for (const [name, change, field] of cases) {
        test(`400 and nothing stored: ${name}`, async () => {
          const alice = await registerAccount(t);
          const res = await put(alice, { ...CONNECTION, ...change });
          expect(res.status).toBe(400);
          const text = await res.text();
          expectNoSecret(text);
          const error = JSON.parse(text).error;
          expect(error.formErrors).toEqual([]);
          expect(Object.keys(error.fieldErrors)).toEqual([field]);
          expect(await storedRow(alice.orgId)).toBeUndefined();
        });
      }

      test('400: a missing secret is named', async () => {
        const alice = await registerAccount(t);
        const { client_secret: _missing, ...rest } = CONNECTION;
        const res = await put(alice, rest);
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['client_secret']);
      });

      test('400 on a bad replacement leaves the previous connection as it was', async () => {
        const alice = await registerAccount(t);
        expect((await put(alice, CONNECTION)).status).toBe(200);
        const before = await storedRow(alice.orgId);
        expect((await put(alice, { ...CONNECTION, customer_id: 'nope' })).status).toBe(400);
        expect(await storedRow(alice.orgId)).toBe(before);
      });

      test('405 for a method the path does not have', async () => {
        const alice = await registerAccount(t);
        expect((await t.request(PATH, { method: 'POST', headers: { cookie: alice.cookie }, json: CONNECTION })).status).toBe(405);
      });
    });

    describe('security', () => {
      test('401 without a session, for every method; nothing stored', async () => {
        const rows = async () => (await db.query('SELECT org_id FROM ad_integrations')).length;
        const before = await rows();
        expect((await t.request(PATH)).status).toBe(401);
        expect((await t.request(PATH, { method: 'PUT', json: CONNECTION })).status).toBe(401);
        expect((await t.request(PATH, { method: 'DELETE' })).status).toBe(401);
        expect((await t.request(PATH, { headers: { cookie: 'svc_session=forged.token.value' } })).status).toBe(401);
        expect(await rows()).toBe(before);
      });

      test('403 for a write from another site’s page; nothing changes', async () => {
        const alice = await registerAccount(t);
        expect((await put(alice, CONNECTION, { origin: 'https://evil.example' })).status).toBe(403);
        expect(await storedRow(alice.orgId)).toBeUndefined();
        expect((await put(alice, CONNECTION)).status).toBe(200);
        const before = await storedRow(alice.orgId);
        expect((await del(alice, { origin: 'https://evil.example' })).status).toBe(403);
        expect(await storedRow(alice.orgId)).toBe(before);
      });

      test('another organization neither sees nor removes the connection', async () => {
        const alice = await registerAccount(t);
        const mallory = await registerAccount(t);
        expect((await put(alice, CONNECTION)).status).toBe(200);
        expect((await body(await get(mallory))).connected).toBe(false);
        expect((await del(mallory)).status).toBe(200);
        expect((await body(await get(alice))).connected).toBe(true);
        expect((await put(mallory, { ...CONNECTION, customer_id: '1112223333' })).status).toBe(200);
        expect((await body(await get(alice))).customer_id).toBe('1234567890');
      });
    });
  });
}
