import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { t as schema } from 'elysia';
import { API_KEY_PATTERN, authenticateApiKey, issueApiKey, listApiKeyPage, revokeApiKey, revokeApiKeyByPrefix } from '../../src/auth/api-keys';
import { createApiKeyCache } from '../../src/auth/api-key-cache';
import { authPlugin } from '../../src/auth/auth.plugin';
import { createSdkKeyCache } from '../../src/auth/sdk-key-cache';
import { assertSdkPlatform, authenticateSdkKey, generateSdkKey, SDK_KEY_PATTERN } from '../../src/auth/sdk-keys';
import { sha256Hex } from '../../src/shared/crypto/secrets';
import { memoryRateLimiter } from '../../src/http/rate-limit';
import { startSession } from '../../src/auth/sessions';
import { createOrganization, createUser } from '../../src/auth/accounts.service';
import type { Db } from '../../src/db/db';
import { openPostgres } from '../../src/db/postgres';
import { newId } from '../../src/shared/ids';
import { body, testApp } from '../support/app';
import { backends, createPostgres } from '../support/db';
import { insertApp, orgWithKey } from '../support/fixtures';
import { behindHttpRules } from '../support/http-harness';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine (the import above
// covers the shared cleanup hooks; this covers the tests of this file).
setDefaultTimeout(120_000);


const SECRET = 'credentials-test-session-secret-0123456789';

/** Routes that exist only here: each credential macro, and the SDK platform check. */
function credentialApp(db: Db) {
  const { base, seal } = behindHttpRules();
  const app = base
    .use(authPlugin({ db, config: { sessionSecret: SECRET, rateLimit: false, keyRateLimit: null }, rateLimiter: memoryRateLimiter(), apiKeyCache: createApiKeyCache(db), sdkKeyCache: createSdkKeyCache(db) }))
    .get('/api/v1/whoami', ({ principal }) => principal, { apiKey: true })
    .get('/postback', ({ principal }) => principal, { apiKey: 'header-or-query' })
    .post('/api/sdk/v1/whoami', ({ sdkApp, body }) => {
      assertSdkPlatform(sdkApp, body.platform);
      return { appId: sdkApp.appId, orgId: sdkApp.orgId, platform: sdkApp.platform };
    }, { sdkKey: true, body: schema.Object({ platform: schema.Optional(schema.String()) }) })
    .get('/api/dashboard/whoami', ({ session }) => session, { session: true });
  return seal(app);
}

for (const backend of backends()) {
  describe(`credentials on ${backend.name}`, async () => {
    const db = await backend.create();
    const request = credentialApp(db);

    describe('API keys', () => {
      test('issued keys are svc_live_ + 32 characters; only the SHA-256 and a 17-character prefix are stored', async () => {
        const orgId = await createOrganization(db, 'Keys');
        const key = await issueApiKey(db, { orgId, name: 'k' });
        expect(key.api_key).toMatch(API_KEY_PATTERN);
        expect(key.api_key).toHaveLength('svc_live_'.length + 32);
        const [row] = await db.query<{ prefix: string; key_hash: string }>('SELECT prefix, key_hash FROM api_keys WHERE id = $1', [key.id]);
        expect(row).toEqual({ prefix: key.api_key.slice(0, 17), key_hash: sha256Hex(key.api_key) });
      });

      test('Authorization: Bearer authenticates (scheme in any case)', async () => {
        const { apiKey, keyId, orgId } = await orgWithKey(db);
        for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
          const res = await request('/api/v1/whoami', { headers: { authorization: `${scheme} ${apiKey}` } });
          expect(res.status).toBe(200);
          expect(await body(res)).toEqual({ keyId, orgId, rateLimitPerMinute: null });
        }
      });

      test('query api_key works on /postback only', async () => {
        const { apiKey, keyId } = await orgWithKey(db);
        const postback = await request(`/postback?api_key=${apiKey}`);
        expect(postback.status).toBe(200);
        expect((await body(postback)).keyId).toBe(keyId);
        const rest = await request(`/api/v1/whoami?api_key=${apiKey}`);
        expect(rest.status).toBe(401);
        expect(await body(rest)).toEqual({ error: 'unauthorized' });
      });

      test('missing, malformed, wrong and revoked keys answer 401 {"error":"unauthorized"}', async () => {
        const { apiKey, keyId, orgId } = await orgWithKey(db);
        const samePrefixOtherSecret = apiKey.slice(0, 17) + 'A'.repeat(24);
        const headers = [
          undefined,
          `Bearer`,
          `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`,
          `Bearer ${apiKey.slice(0, -1)}`,
          `Bearer ${apiKey}x`,
          `Bearer ${samePrefixOtherSecret}`,
          `Bearer svc_test_${apiKey.slice(9)}`,
          `Bearer ${apiKey} extra`,
        ];
        for (const authorization of headers) {
          const res = await request('/api/v1/whoami', { headers: authorization ? { authorization } : {} });
          expect(res.status).toBe(401);
          expect(await res.text()).toBe('{"error":"unauthorized"}');
        }
        expect(await revokeApiKey(db, orgId, keyId)).toBe(true);
        expect((await request('/api/v1/whoami', { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(401);
        expect((await request(`/postback?api_key=${apiKey}`)).status).toBe(401);
      });

      test('revokeApiKey only touches the given organization; revokeApiKeyByPrefix finds live keys only', async () => {
        const a = await orgWithKey(db);
        const b = await orgWithKey(db);
        expect(await revokeApiKey(db, b.orgId, a.keyId)).toBe(false);
        expect(await authenticateApiKey(db, a.apiKey)).not.toBeNull();
        expect(await revokeApiKeyByPrefix(db, a.apiKey.slice(0, 17))).toEqual({ id: a.keyId, org_id: a.orgId });
        expect(await revokeApiKeyByPrefix(db, a.apiKey.slice(0, 17))).toBeUndefined();
        expect(await authenticateApiKey(db, a.apiKey)).toBeNull();
        expect((await listApiKeyPage(db, b.orgId, {})).data.map((k) => k.revoked_at)).toEqual([null]);
      });
    });

    describe('SDK keys', () => {
      test('generated keys are sk_ + 32 characters and only their hash finds the app', async () => {
        const { key, hash } = generateSdkKey();
        expect(key).toMatch(SDK_KEY_PATTERN);
        expect(hash).toBe(sha256Hex(key));
        const { orgId } = await orgWithKey(db);
        const appId = newId();
        await db.query(
          `INSERT INTO apps (id, org_id, name, platform, sdk_key, sdk_key_hash, reattribution_days, settings)
           VALUES ($1, $2, 'App', 'ios', $3, $4, 30, $5::text::jsonb)`,
          [appId, orgId, key, hash, JSON.stringify({ a: 1 })],
        );
        expect(await authenticateSdkKey(db, key)).toEqual({ appId, orgId, platform: 'ios', reattributionDays: 30, settings: { a: 1 }, rateLimitPerMinute: null });
        const [stored] = await db.query<{ sdk_key_hash: string }>('SELECT sdk_key_hash FROM apps WHERE id = $1', [appId]);
        expect(stored!.sdk_key_hash).toBe(sha256Hex(key));
      });

      test('header X-SDK-Key or query sdk_key authenticates', async () => {
        const { orgId } = await orgWithKey(db);
        const { appId, sdkKey } = await insertApp(db, orgId, { platform: 'android' });
        const viaHeader = await request('/api/sdk/v1/whoami', { method: 'POST', headers: { 'x-sdk-key': sdkKey }, json: {} });
        expect(viaHeader.status).toBe(200);
        expect(await body(viaHeader)).toEqual({ appId, orgId, platform: 'android' });
        const viaQuery = await request(`/api/sdk/v1/whoami?sdk_key=${sdkKey}`, { method: 'POST', json: { platform: 'android' } });
        expect(viaQuery.status).toBe(200);
      });

      test('missing, malformed or unknown SDK keys answer 401 (with CORS, as browsers call these paths)', async () => {
        const { orgId } = await orgWithKey(db);
        const { sdkKey } = await insertApp(db, orgId);
        for (const key of [undefined, '', sdkKey.slice(0, -1), generateSdkKey().key, `svc_live_${sdkKey.slice(3)}`]) {
          const res = await request('/api/sdk/v1/whoami', { method: 'POST', headers: key === undefined ? {} : { 'x-sdk-key': key }, json: {} });
          expect(res.status).toBe(401);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
        }
      });

      test('an API key is not an SDK key, and an SDK key is not an API key', async () => {
        const { orgId, apiKey } = await orgWithKey(db);
        const { sdkKey } = await insertApp(db, orgId);
        expect((await request('/api/sdk/v1/whoami', { method: 'POST', headers: { 'x-sdk-key': apiKey }, json: {} })).status).toBe(401);
        expect((await request('/api/v1/whoami', { headers: { authorization: `Bearer ${sdkKey}` } })).status).toBe(401);
      });

      test('an SDK key used for another platform answers 400', async () => {
        const { orgId } = await orgWithKey(db);
        const { sdkKey } = await insertApp(db, orgId, { platform: 'ios' });
        const res = await request('/api/sdk/v1/whoami', { method: 'POST', headers: { 'x-sdk-key': sdkKey }, json: { platform: 'android' } });
        expect(res.status).toBe(400);
        expect(await body(res)).toEqual({ error: 'this SDK key belongs to a ios app, not android' });
        const app = { appId: 'a', orgId: 'o', platform: 'web', reattributionDays: 90, settings: {} };
        expect(() => assertSdkPlatform(app, 'web')).not.toThrow();
        expect(() => assertSdkPlatform(app, undefined)).not.toThrow();
        expect(() => assertSdkPlatform(app, 'ios')).toThrow();
      });
    });

    describe('session macro', () => {
      test('a live session cookie gives {userId, orgId}; anything else is 401', async () => {
        const orgId = await createOrganization(db, 'Sessions');
        const userId = await createUser(db, { orgId, email: `s${Date.now()}@example.com`, password: 'correct horse' });
        const { token } = await startSession(db, SECRET, { userId, orgId });
        const res = await request('/api/dashboard/whoami', { headers: { cookie: `theme=dark; svc_session=${token}` } });
        expect(res.status).toBe(200);
        expect(await body(res)).toMatchObject({ userId, orgId });
        expect((await request('/api/dashboard/whoami', { headers: { cookie: `svc_sessionx=${token}` } })).status).toBe(401);
        expect((await request('/api/dashboard/whoami', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
      });
    });
  });
}

describe('revocation reaches every instance at once', async () => {
  const [pglite] = backends();
  const db = await pglite!.create();

  test('two app instances on one database (PGlite)', async () => {
    const first = await testApp(db, {}, { mirror: false, workers: false });
    const second = await testApp(db, {}, { mirror: false, workers: false });
    await revokedEverywhere(db, first, second);
  });

  if (process.env.DATABASE_URL) {
    test('two app instances on two connections to one Postgres database', async () => {
      const { db: one, url } = await createPostgres();
      const two = openPostgres(url, { max: 2 });
      try {
        await revokedEverywhere(one, await testApp(one, {}, { mirror: false, workers: false }), await testApp(two, {}, { mirror: false, workers: false }));
      } finally {
        await two.close();
      }
    });
  }
});

/** Instance A revokes through the dashboard; instance B must refuse the key on its very next request. */
async function revokedEverywhere(db: Db, first: Awaited<ReturnType<typeof testApp>>, second: Awaited<ReturnType<typeof testApp>>) {
  const registered = await first.request('/register', {
    method: 'POST',
    json: { email: `r${Date.now()}${Math.random()}@example.com`, password: 'correct horse', organization: 'Two nodes' },
  });
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const key = await body(await first.request('/api/dashboard/keys', { method: 'POST', headers: { cookie }, json: { name: 'shared' } }));
  const auth = { authorization: `Bearer ${key.api_key}` };
  expect((await second.request('/api/v1/clicks', { headers: auth })).status).toBe(200);
  expect((await first.request(`/api/dashboard/keys/${key.id}`, { method: 'DELETE', headers: { cookie } })).status).toBe(200);
  const refused = await second.request('/api/v1/clicks', { headers: auth });
  expect(refused.status).toBe(401);
  expect(await body(refused)).toEqual({ error: 'unauthorized' });
  expect((await first.request('/api/v1/clicks', { headers: auth })).status).toBe(401);
  expect(await authenticateApiKey(db, key.api_key)).toBeNull();
}
