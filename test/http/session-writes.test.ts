import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { newId } from '../../src/shared/ids';
import { body, testApp, TEST_BASE_URL } from '../support/app';
import { backends } from '../support/db';
import { cookieOf, expectSecurityHeaders } from '../support/http';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine.
setDefaultTimeout(120_000);

const email = () => `u${newId().toLowerCase()}@example.com`;
const FOREIGN = 'https://attacker.example';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

for (const backend of backends()) {
  describe(`session writes on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db);
    const sessionCount = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions'))[0]!.n;
    const keyCount = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys'))[0]!.n;
    const account = async () => {
      const address = email();
      const res = await t.request('/register', { method: 'POST', json: { email: address, password: 'correct horse', organization: 'Acme' } });
      expect(res.status).toBe(201);
      return { address, cookie: cookieOf(res) };
    };

    describe('happy', () => {
      test('JSON with BASE_URL’s origin, or with no Origin (a non-browser client), signs in', async () => {
        const { address } = await account();
        for (const origin of [new URL(TEST_BASE_URL).origin, undefined]) {
          const res = await t.request('/login', { method: 'POST', headers: origin ? { origin } : {}, json: { email: address, password: 'correct horse' } });
          expect(res.status).toBe(200);
          expect(res.headers.get('set-cookie')).toStartWith('svc_session=');
        }
      });

      test('JSON with a charset parameter is JSON; a write without a body needs no Content-Type', async () => {
        const { cookie } = await account();
        const created = await t.request('/api/dashboard/keys', {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json; charset=utf-8', origin: new URL(TEST_BASE_URL).origin },
          body: JSON.stringify({ name: 'k' }),
        });
        expect(created.status).toBe(201);
        const { id } = await body(created);
        expect((await t.request(`/api/dashboard/keys/${id}`, { method: 'DELETE', headers: { cookie } })).status).toBe(200);
        expect((await t.request('/logout', { method: 'POST', headers: { cookie } })).status).toBe(200);
      });

      test('reads are not writes: a GET with a foreign Origin is answered', async () => {
        const { cookie } = await account();
        expect((await t.request('/api/dashboard/keys', { headers: { cookie, origin: FOREIGN } })).status).toBe(200);
      });
    });

    describe('security', () => {
      test('a cross-site form POST to /login is refused: no cookie, no session', async () => {
        const { address } = await account();
        const before = await sessionCount();
        const form = new URLSearchParams({ email: address, password: 'correct horse' }).toString();
        const res = await t.request('/login', { method: 'POST', headers: { ...FORM, origin: FOREIGN }, body: form });
        expect(res.status).toBe(403);
        expectSecurityHeaders(res);
        expect(await body(res)).toEqual({ error: 'forbidden' });
        expect(res.headers.get('set-cookie')).toBeNull();
        expect(await sessionCount()).toBe(before);
      });

      test('a form POST without Origin is refused as 415 in the short error shape', async () => {
        const { address } = await account();
        const before = await sessionCount();
        for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain', 'application/jsonx']) {
          const res = await t.request('/login', { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify({ email: address, password: 'correct horse' }) });
          expect({ type, status: res.status }).toEqual({ type, status: 415 });
          expectSecurityHeaders(res);
          expect(await body(res)).toEqual({ error: 'unsupported media type' });
          expect(res.headers.get('set-cookie')).toBeNull();
        }
        const untyped = await t.request('/login', { method: 'POST', body: `email=${address}&password=correct+horse` });
        expect(untyped.status).toBe(415);
        expect(await sessionCount()).toBe(before);
      });

      test('a foreign or null Origin is refused on every session write, with a valid cookie and JSON', async () => {
        const { address, cookie } = await account();
        const { id } = await body(await t.request('/api/dashboard/keys', { method: 'POST', headers: { cookie }, json: { name: 'keep' } }));
        const keys = await keyCount();
        for (const origin of [FOREIGN, 'null', 'http://api.test.local.attacker.example', 'https://api.test.local', 'http://api.test.local:8080']) {
          const attempts: [string, string, unknown][] = [
            ['POST', '/login', { email: address, password: 'correct horse' }],
            ['POST', '/register', { email: email(), password: 'correct horse', organization: 'X' }],
            ['POST', '/logout', undefined],
            ['POST', '/api/dashboard/keys', { name: 'stolen' }],
            ['DELETE', `/api/dashboard/keys/${id}`, undefined],
          ];
          for (const [method, path, json] of attempts) {
            const res = await t.request(path, { method, headers: { cookie, origin }, json });
            expect({ origin, method, path, status: res.status }).toEqual({ origin, method, path, status: 403 });
            expect(res.headers.get('set-cookie')).toBeNull();
          }
        }
        expect(await keyCount()).toBe(keys);
        // The session survived the refused logout.
        expect((await t.request('/api/dashboard/keys', { headers: { cookie } })).status).toBe(200);
      });

      test('dashboard writes still to come get the rule by their path', async () => {
        const { cookie } = await account();
        expect((await t.request('/api/dashboard/anything', { method: 'POST', headers: { cookie, origin: FOREIGN }, json: {} })).status).toBe(403);
        expect((await t.request('/api/dashboard/anything', { method: 'PUT', headers: { cookie, ...FORM }, body: 'a=1' })).status).toBe(415);
        expect((await t.request('/api/protect/sync', { method: 'POST', headers: { cookie, origin: FOREIGN } })).status).toBe(403);
      });

      test('other endpoints keep their own rules: the SDK is called cross-origin', async () => {
        const res = await t.request('/api/sdk/v1/install', { method: 'POST', headers: { origin: FOREIGN }, json: {} });
        expect(res.status).toBe(400);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
      });
    });
  });
}
