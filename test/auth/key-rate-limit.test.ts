import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { ulid } from 'ulid';
import { createServing } from '../../src/app';
import { issueApiKey } from '../../src/auth/api-keys';
import { createKeyChanges } from '../../src/auth/key-changes';
import { KeyRateLimitField } from '../../src/auth/key-rate-limit';
import { createOrganization } from '../../src/auth/accounts.service';
import { loadConfig } from '../../src/config/config';
import type { Db } from '../../src/db/db';
import { redisRateLimiter } from '../../src/http/rate-limit';
import { createServices } from '../../src/services';
import { newId } from '../../src/shared/ids';
import { body, testApp, TEST_BASE_URL, type TestApp } from '../support/app';
import { backends } from '../support/db';
import { insertApp } from '../support/fixtures';
import { cookieOf, expectSecurityHeaders } from '../support/http';
import { awayFromWindowEnd } from '../support/rate-window';
import { tempDir } from '../support/temp-dir';
import { eventually } from '../support/wait';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine.
setDefaultTimeout(120_000);

type Requester = Pick<TestApp, 'request'>;

/** A client address of its own per call site, so no test spends another's per-IP budget. */
let lastOctet = 0;
const freshClient = () => ({ 'x-forwarded-for': `198.51.${100 + Math.floor(++lastOctet / 250)}.${lastOctet % 250}` });

/** An API key of a new organization, with its own limit (or none). */
async function limitedKey(db: Db, rateLimitPerMinute: number | null = null, orgId?: string) {
  const org = orgId ?? (await createOrganization(db, `Org ${newId()}`));
  const key = await issueApiKey(db, { orgId: org, name: 'integration', rateLimitPerMinute });
  return { orgId: org, keyId: key.id, auth: { authorization: `Bearer ${key.api_key}` }, apiKey: key.api_key };
}

/** A read under /api/v1 (300 a minute per IP) that answers 200 for any live key. */
const listApps = (t: Requester, auth: Record<string, string>, client: Record<string, string>) => t.request('/api/v1/apps?limit=1', { headers: { ...auth, ...client } });

async function statuses(count: number, call: () => Promise<Response>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await call()).status);
  return seen;
}

async function expectRateLimited(response: Response): Promise<void> {
  expect(response.status).toBe(429);
  expectSecurityHeaders(response);
  const json = await body(response);
  expect(Object.keys(json).sort()).toEqual(['error', 'retry_after']);
  expect(json.error).toBe('rate_limited');
  expect(Number.isInteger(json.retry_after)).toBe(true);
  expect(json.retry_after).toBeGreaterThanOrEqual(1);
  expect(json.retry_after).toBeLessThanOrEqual(60);
  expect(response.headers.get('retry-after')).toBe(String(json.retry_after));
}

/** A user of a new organization, signed up through /register from an address of its own (20 sign-ups a minute per IP). */
async function signedIn(t: Requester) {
  const res = await t.request('/register', {
    method: 'POST',
    headers: freshClient(),
    json: { email: `u${newId().toLowerCase()}@example.com`, password: 'correct horse', organization: 'Acme' },
  });
  expect(res.status).toBe(201);
  const { user_id: userId, org_id: orgId } = await body(res);
  return { userId, orgId, cookie: cookieOf(res) };
}

const BAD_LIMITS: unknown[] = [0, 1_000_001, -5, 10.5, '10', 'ten', true, {}, [10]];

describe('rate_limit_per_minute in a body', () => {
  test('takes every whole number from 1 to 1,000,000 and null (property)', () => {
    fc.assert(fc.property(fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.constant(null)), (value) => Value.Check(KeyRateLimitField, value)));
  });

  test('refuses every other number, and any other type (property)', () => {
    const outside = fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 1_000_001 }), fc.double({ noNaN: false }).filter((n) => !Number.isInteger(n) || n < 1 || n > 1_000_000));
    const otherTypes = fc.oneof(fc.string(), fc.boolean(), fc.array(fc.integer()), fc.object(), fc.integer({ min: 1, max: 1_000_000 }).map(String));
    fc.assert(fc.property(fc.oneof(outside, otherTypes), (value) => !Value.Check(KeyRateLimitField, value)));
  });
});

for (const backend of backends()) {
  describe(`key rate limits on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const keyRows = (orgId: string) => db.query<{ id: string; rate_limit_per_minute: number | null }>('SELECT id, rate_limit_per_minute FROM api_keys WHERE org_id = $1', [orgId]);
    const audit = (orgId: string) =>
      db.query<{ action: string; entity: string; entity_id: string; user_id: string | null; api_key_id: string | null; detail: unknown }>(
        'SELECT action, entity, entity_id, user_id, api_key_id, detail FROM audit_log WHERE org_id = $1 ORDER BY id',
        [orgId],
      );
    const patchKey = (cookie: string, id: string, json: unknown) => t.request(`/api/dashboard/keys/${id}`, { method: 'PATCH', headers: { cookie, ...freshClient() }, json });
    const createKey = (cookie: string, json: unknown) => t.request('/api/dashboard/keys', { method: 'POST', headers: { cookie }, json });
    const keyList = async (cookie: string) => (await body(await t.request('/api/dashboard/keys', { headers: { cookie } }))).data as Record<string, unknown>[];

    describe('API keys: setting the limit', () => {
      test('created with a limit, listed with it, changed and removed by PATCH; each change audited with the user', async () => {
        const user = await signedIn(t);
        const created = await createKey(user.cookie, { name: 'ads', rate_limit_per_minute: 10 });
        expect(created.status).toBe(201);
        const key = await body(created);
        expect(key.rate_limit_per_minute).toBe(10);
        expect((await keyList(user.cookie)).map((row) => row.rate_limit_per_minute)).toEqual([10]);

        const raised = await patchKey(user.cookie, key.id, { rate_limit_per_minute: 1_000_000 });
        expect(raised.status).toBe(200);
        const answer = await body(raised);
        expect(answer).toMatchObject({ id: key.id, name: 'ads', prefix: key.prefix, rate_limit_per_minute: 1_000_000, revoked_at: null });
        expect(JSON.stringify(answer)).not.toContain(key.api_key);
        const removed = await body(await patchKey(user.cookie, key.id, { rate_limit_per_minute: null }));
        expect(removed.rate_limit_per_minute).toBeNull();
        expect(await keyRows(user.orgId)).toEqual([{ id: key.id, rate_limit_per_minute: null }]);

        expect(await audit(user.orgId)).toEqual([
          { action: 'create', entity: 'api_key', entity_id: key.id, user_id: user.userId, api_key_id: null, detail: { rate_limit_per_minute: 10 } },
          { action: 'update', entity: 'api_key', entity_id: key.id, user_id: user.userId, api_key_id: null, detail: { rate_limit_per_minute: { from: 10, to: 1_000_000 } } },
          { action: 'update', entity: 'api_key', entity_id: key.id, user_id: user.userId, api_key_id: null, detail: { rate_limit_per_minute: { from: 1_000_000, to: null } } },
        ]);
      });

      test('a key made without a limit has none (null)', async () => {
        const user = await signedIn(t);
        const key = await body(await createKey(user.cookie, { name: 'plain' }));
        expect(key.rate_limit_per_minute).toBeNull();
        const explicit = await body(await createKey(user.cookie, { name: 'explicit', rate_limit_per_minute: null }));
        expect(explicit.rate_limit_per_minute).toBeNull();
      });

      test('bad values answer 400 naming rate_limit_per_minute, in the spec shape, and change nothing', async () => {
        const user = await signedIn(t);
        const key = await body(await createKey(user.cookie, { name: 'kept', rate_limit_per_minute: 50 }));
        for (const bad of BAD_LIMITS) {
          for (const res of [await createKey(user.cookie, { name: 'refused', rate_limit_per_minute: bad }), await patchKey(user.cookie, key.id, { rate_limit_per_minute: bad })]) {
            expect(res.status).toBe(400);
            const json = await body(res);
            expect(Object.keys(json)).toEqual(['error']);
            expect(json.error.formErrors).toEqual([]);
            expect(Object.keys(json.error.fieldErrors)).toEqual(['rate_limit_per_minute']);
            expect(json.error.fieldErrors.rate_limit_per_minute).toEqual(['must be an integer from 1 to 1000000, or null for no limit of its own']);
          }
        }
        for (const json of [{}, { rate_limit_per_minute: 5, name: 'renamed' }]) {
          expect((await patchKey(user.cookie, key.id, json)).status).toBe(400);
        }
        expect(await keyRows(user.orgId)).toEqual([{ id: key.id, rate_limit_per_minute: 50 }]);
        expect((await audit(user.orgId)).map((row) => row.action)).toEqual(['create']);
      });

      test('an unknown key answers 404; without a session 401', async () => {
        const user = await signedIn(t);
        const missing = await patchKey(user.cookie, 'no-such-key', { rate_limit_per_minute: 5 });
        expect(missing.status).toBe(404);
        expect(await body(missing)).toEqual({ error: 'key not found' });
        const key = await body(await createKey(user.cookie, { name: 'mine' }));
        const anonymous = await t.request(`/api/dashboard/keys/${key.id}`, { method: 'PATCH', json: { rate_limit_per_minute: 5 } });
        expect(anonymous.status).toBe(401);
        expect(await keyRows(user.orgId)).toEqual([{ id: key.id, rate_limit_per_minute: null }]);
      });

      test("security: organization B cannot change organization A's key, and learns nothing of it", async () => {
        const a = await signedIn(t);
        const b = await signedIn(t);
        const key = await body(await createKey(a.cookie, { name: 'a key', rate_limit_per_minute: 10 }));
        const res = await patchKey(b.cookie, key.id, { rate_limit_per_minute: 1_000_000 });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'key not found' });
        expect(await keyRows(a.orgId)).toEqual([{ id: key.id, rate_limit_per_minute: 10 }]);
        expect(await audit(b.orgId)).toEqual([]);
        expect((await audit(a.orgId)).map((row) => row.action)).toEqual(['create']);
      });
    });

    describe('API keys: counting', () => {
      test('a key limited to 10 a minute gets its 11th request refused with 429; another key from the same address goes on', async () => {
        await awayFromWindowEnd();
        const client = freshClient();
        const limited = await limitedKey(db, 10);
        const sibling = await limitedKey(db, null, limited.orgId);
        expect(await statuses(10, () => listApps(t, limited.auth, client))).toEqual(Array(10).fill(200));
        await expectRateLimited(await listApps(t, limited.auth, client));
        // Another address does not help the key: the budget is the key's.
        await expectRateLimited(await listApps(t, limited.auth, freshClient()));
        expect(await statuses(5, () => listApps(t, sibling.auth, client))).toEqual(Array(5).fill(200));
      });

      test('an unlimited key is held only by the per-IP limit (300 a minute on /api/v1)', async () => {
        await awayFromWindowEnd(30_000);
        const client = freshClient();
        const unlimited = await limitedKey(db, null);
        expect(new Set(await statuses(300, () => listApps(t, unlimited.auth, client)))).toEqual(new Set([200]));
        await expectRateLimited(await listApps(t, unlimited.auth, client));
        // The same key from another address is served: it was the address that ran out.
        expect((await listApps(t, unlimited.auth, freshClient())).status).toBe(200);
      });

      test('a limit change takes effect on the next request, without a restart', async () => {
        await awayFromWindowEnd();
        const user = await signedIn(t);
        const key = await body(await createKey(user.cookie, { name: 'changing', rate_limit_per_minute: 3 }));
        const auth = { authorization: `Bearer ${key.api_key}` };
        const client = freshClient();
        expect(await statuses(3, () => listApps(t, auth, client))).toEqual([200, 200, 200]);
        expect((await listApps(t, auth, client)).status).toBe(429);
        expect((await patchKey(user.cookie, key.id, { rate_limit_per_minute: 6 })).status).toBe(200);
        // Four counted so far (the refused one too): two more fit under six.
        expect(await statuses(3, () => listApps(t, auth, client))).toEqual([200, 200, 429]);
        expect((await patchKey(user.cookie, key.id, { rate_limit_per_minute: null })).status).toBe(200);
        expect(await statuses(5, () => listApps(t, auth, client))).toEqual(Array(5).fill(200));
      });

      test('a revoked key answers 401 at once, never 429, even with its budget spent', async () => {
        await awayFromWindowEnd();
        const user = await signedIn(t);
        const key = await body(await createKey(user.cookie, { name: 'leaked', rate_limit_per_minute: 2 }));
        const auth = { authorization: `Bearer ${key.api_key}` };
        const client = freshClient();
        expect(await statuses(3, () => listApps(t, auth, client))).toEqual([200, 200, 429]);
        expect((await t.request(`/api/dashboard/keys/${key.id}`, { method: 'DELETE', headers: { cookie: user.cookie } })).status).toBe(200);
        for (const res of [await listApps(t, auth, client), await t.request('/postback?api_key=' + key.api_key + '&event=purchase', { headers: client })]) {
          expect(res.status).toBe(401);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
      });

      test('a wrong key is 401 and spends no key budget; the cached write path (/postback) counts too', async () => {
        await awayFromWindowEnd();
        const key = await limitedKey(db, 2);
        const client = freshClient();
        const postback = () => t.request(`/postback?api_key=${key.apiKey}&event=purchase`, { headers: client });
        const first = (await postback()).status;
        expect(first).not.toBe(429);
        expect((await postback()).status).toBe(first);
        await expectRateLimited(await postback());
        // The key's budget is one across routes: a read is refused too.
        expect((await listApps(t, key.auth, client)).status).toBe(429);
        const wrong = { authorization: `Bearer ${key.apiKey.slice(0, -1)}${key.apiKey.endsWith('a') ? 'b' : 'a'}` };
        expect((await listApps(t, wrong, client)).status).toBe(401);
      });

      test('a spent key never delays /c, /l or /i: they take no key', async () => {
        await awayFromWindowEnd();
        const key = await limitedKey(db, 1);
        const client = freshClient();
        expect(await statuses(2, () => listApps(t, key.auth, client))).toEqual([200, 429]);
        for (const path of ['/c/nothing-here', '/l/nothing-here', '/i/nothing-here']) {
          const res = await t.request(`http://track.test.local${path}?api_key=${key.apiKey}`, { headers: { ...client, ...key.auth } });
          expect(res.status).not.toBe(429);
        }
      });

      test('RATE_LIMIT=off switches key limits off too', async () => {
        const off = await testApp(db, { RATE_LIMIT: 'off', KEY_RATE_LIMIT: '1' }, { mirror: false, workers: false });
        const key = await limitedKey(db, 1);
        expect(await statuses(4, () => listApps(off, key.auth, freshClient()))).toEqual([200, 200, 200, 200]);
      });

      test('KEY_RATE_LIMIT is the limit of keys without their own; a key with its own keeps it', async () => {
        await awayFromWindowEnd();
        const node = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: '1', KEY_RATE_LIMIT: '3' }, { mirror: false, workers: false });
        const plain = await limitedKey(db, null);
        const own = await limitedKey(db, 5);
        const client = freshClient();
        expect(await statuses(4, () => listApps(node, plain.auth, client))).toEqual([200, 200, 200, 429]);
        expect(await statuses(6, () => listApps(node, own.auth, client))).toEqual([200, 200, 200, 200, 200, 429]);
      });

      test('MCP calls with a key count against it', async () => {
        await awayFromWindowEnd();
        const key = await limitedKey(db, 2);
        const client = freshClient();
        const call = () =>
          t.request('/api/mcp', { method: 'POST', headers: { ...key.auth, ...client, accept: 'application/json, text/event-stream' }, json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
        expect(await statuses(2, call)).toEqual([200, 200]);
        await expectRateLimited(await call());
      });
    });

    describe('SDK keys', () => {
      const open = (t: Requester, sdkKey: string, client: Record<string, string>) =>
        t.request('/api/sdk/v1/open', { method: 'POST', headers: { 'x-sdk-key': sdkKey, ...client }, json: { device_id: `dev-${newId()}`, url: null, click_id: null } });
      const apiKey = async () => limitedKey(db, null);

      test('an app made with a limit shows it; PATCH changes it, audited with the key that did; the SDK key is held to it', async () => {
        await awayFromWindowEnd();
        const owner = await apiKey();
        const created = await t.request('/api/v1/apps', { method: 'POST', headers: owner.auth, json: { name: 'Shop', platform: 'android', rate_limit_per_minute: 3 } });
        expect(created.status).toBe(201);
        const app = await body(created);
        expect(app.rate_limit_per_minute).toBe(3);
        expect((await body(await t.request(`/api/v1/apps/${app.id}`, { headers: owner.auth }))).rate_limit_per_minute).toBe(3);
        const client = freshClient();
        const served = (await open(t, app.sdk_key, client)).status;
        expect(served).not.toBe(429);
        expect(await statuses(2, () => open(t, app.sdk_key, client))).toEqual([served, served]);
        await expectRateLimited(await open(t, app.sdk_key, client));

        // Another app's key from the same address goes on.
        const other = await insertApp(db, owner.orgId);
        expect((await open(t, other.sdkKey, client)).status).toBe(served);

        const patched = await t.request(`/api/v1/apps/${app.id}`, { method: 'PATCH', headers: owner.auth, json: { rate_limit_per_minute: 100 } });
        expect(patched.status).toBe(200);
        expect((await body(patched)).rate_limit_per_minute).toBe(100);
        // The node's 5 s SDK key cache was dropped: the new limit counts at once.
        expect((await open(t, app.sdk_key, client)).status).toBe(served);
        const [, update] = await audit(owner.orgId);
        expect(update).toMatchObject({ action: 'update', entity: 'app', entity_id: app.id, api_key_id: owner.keyId, detail: { fields: ['rate_limit_per_minute'], rate_limit_per_minute: { from: 3, to: 100 } } });
        expect(JSON.stringify(await audit(owner.orgId))).not.toContain(app.sdk_key);
      });

      test('the web app sets an SDK key limit through /api/dashboard/apps, on create and after', async () => {
        const user = await signedIn(t);
        const created = await t.request('/api/dashboard/apps', { method: 'POST', headers: { cookie: user.cookie }, json: { name: 'Web', platform: 'web', rate_limit_per_minute: 7 } });
        expect(created.status).toBe(201);
        const app = await body(created);
        expect(app.rate_limit_per_minute).toBe(7);
        const patched = await t.request(`/api/dashboard/apps/${app.id}`, { method: 'PATCH', headers: { cookie: user.cookie }, json: { rate_limit_per_minute: null } });
        expect(patched.status).toBe(200);
        expect((await body(patched)).rate_limit_per_minute).toBeNull();
        const listed = (await body(await t.request('/api/dashboard/apps', { headers: { cookie: user.cookie } }))).data;
        expect(listed.map((row: { rate_limit_per_minute: unknown }) => row.rate_limit_per_minute)).toEqual([null]);
        const [, update] = await audit(user.orgId);
        expect(update).toMatchObject({ action: 'update', entity: 'app', user_id: user.userId, detail: { rate_limit_per_minute: { from: 7, to: null } } });
      });

      test('bad values answer 400 naming rate_limit_per_minute and change nothing', async () => {
        const owner = await apiKey();
        const app = await body(await t.request('/api/v1/apps', { method: 'POST', headers: owner.auth, json: { name: 'Kept', platform: 'ios', rate_limit_per_minute: 40 } }));
        for (const bad of BAD_LIMITS) {
          const refused = [
            await t.request('/api/v1/apps', { method: 'POST', headers: owner.auth, json: { name: 'Refused', platform: 'ios', rate_limit_per_minute: bad } }),
            await t.request(`/api/v1/apps/${app.id}`, { method: 'PATCH', headers: owner.auth, json: { rate_limit_per_minute: bad } }),
          ];
          for (const res of refused) {
            expect(res.status).toBe(400);
            expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['rate_limit_per_minute']);
          }
        }
        const rows = await db.query<{ name: string; rate_limit_per_minute: number | null }>('SELECT name, rate_limit_per_minute FROM apps WHERE org_id = $1', [owner.orgId]);
        expect(rows).toEqual([{ name: 'Kept', rate_limit_per_minute: 40 }]);
        expect((await audit(owner.orgId)).map((row) => row.action)).toEqual(['create']);
      });

      test("security: organization B cannot change organization A's app limit", async () => {
        const a = await apiKey();
        const b = await apiKey();
        const app = await body(await t.request('/api/v1/apps', { method: 'POST', headers: a.auth, json: { name: 'A', platform: 'ios', rate_limit_per_minute: 10 } }));
        const res = await t.request(`/api/v1/apps/${app.id}`, { method: 'PATCH', headers: b.auth, json: { rate_limit_per_minute: 1_000_000 } });
        expect(res.status).toBe(404);
        const user = await signedIn(t);
        expect((await t.request(`/api/dashboard/apps/${app.id}`, { method: 'PATCH', headers: { cookie: user.cookie }, json: { rate_limit_per_minute: null } })).status).toBe(404);
        const [row] = await db.query<{ rate_limit_per_minute: number | null }>('SELECT rate_limit_per_minute FROM apps WHERE id = $1', [app.id]);
        expect(row!.rate_limit_per_minute).toBe(10);
        expect(await audit(b.orgId)).toEqual([]);
        expect(await audit(user.orgId)).toEqual([]);
      });
    });

    describe('two nodes on one database', () => {
      test("a limit changed on one node reaches the other node's key cache at once (NOTIFY), not after its 30 s", async () => {
        const nodeA = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: '1' }, { mirror: false });
        const nodeB = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: '1' }, { mirror: false });
        await awayFromWindowEnd();
        const user = await signedIn(nodeA);
        const key = await body(await createKey(user.cookie, { name: 'shared', rate_limit_per_minute: 2 }));
        const client = freshClient();
        // /postback goes through node B's key cache, which now holds the key with its limit of 2.
        const postback = () => nodeB.request(`/postback?api_key=${key.api_key}&event=purchase`, { headers: client });
        const served = (await postback()).status;
        expect([served, (await postback()).status, (await postback()).status]).toEqual([served, served, 429]);
        const patched = await nodeA.request(`/api/dashboard/keys/${key.id}`, { method: 'PATCH', headers: { cookie: user.cookie }, json: { rate_limit_per_minute: 1_000_000 } });
        expect(patched.status).toBe(200);
        // Well inside the cache's 30 s: only the notification can have dropped B's entry.
        await eventually(async () => (await postback()).status === served, { timeoutMs: 10_000 });
      });

      test('key changes published on one node make the other forget the key', async () => {
        const forgotten: string[] = [];
        const listening = createKeyChanges(db, { apiKeyCache: { forget: (id) => forgotten.push(`api:${id}`) }, sdkKeyCache: { forget: (id) => forgotten.push(`sdk:${id}`) } });
        const publishing = createKeyChanges(db, { apiKeyCache: { forget: () => {} }, sdkKeyCache: { forget: () => {} } });
        await listening.start();
        try {
          await publishing.publish({ kind: 'api', keyId: 'key-1' });
          await publishing.publish({ kind: 'sdk', appId: 'app-1' });
          await eventually(() => forgotten.length >= 2);
          expect(forgotten).toEqual(['api:key-1', 'sdk:app-1']);
        } finally {
          await listening.stop();
        }
      });
    });

    if (process.env.REDIS_URL) {
      test('with Redis, two nodes share one key budget; another key from the same address goes on', async () => {
        const namespace = `svc:test:${ulid()}`;
        const node = async () => {
          const config = loadConfig({
            DATA_DIR: tempDir('key-rl'),
            BASE_URL: TEST_BASE_URL,
            SESSION_SECRET: 'key-rate-limit-test-session-secret-0123456789',
            RATE_LIMIT: 'on',
            TRUST_PROXY: '1',
            REDIS_URL: process.env.REDIS_URL,
          });
          const services = await createServices(config, db, { mirror: false });
          await services.rateLimiter.close();
          services.rateLimiter = redisRateLimiter(config.redisUrl!, { namespace });
          const serving = createServing(services);
          return {
            request: async (path: string, init: RequestInit = {}) => serving.fetch(new Request(`${TEST_BASE_URL}${path}`, init)),
            // services.stop() closes the limiter it was built with; the Redis one put in its place is closed here.
            stop: async () => {
              await services.stop();
              await services.rateLimiter.close();
            },
          };
        };
        const [first, second] = [await node(), await node()];
        await awayFromWindowEnd();
        try {
          const limited = await limitedKey(db, 10);
          const sibling = await limitedKey(db, null, limited.orgId);
          const client = freshClient();
          const call = (n: { request: (path: string, init?: RequestInit) => Promise<Response> }, auth: Record<string, string>) => n.request('/api/v1/apps?limit=1', { headers: { ...auth, ...client } });
          let turn = 0;
          expect(await statuses(10, () => call(turn++ % 2 ? first : second, limited.auth))).toEqual(Array(10).fill(200));
          const refusedFirst = await call(first, limited.auth);
          await expectRateLimited(refusedFirst);
          expect((await call(second, limited.auth)).status).toBe(429);
          expect((await call(first, sibling.auth)).status).toBe(200);
          expect((await call(second, sibling.auth)).status).toBe(200);
        } finally {
          await first.stop();
          await second.stop();
        }
      }, 60_000);
    }
  });
}
