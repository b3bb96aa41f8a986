import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { SignJWT, UnsecuredJWT } from 'jose';
import { newId } from '../../src/shared/ids';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { cookieOf, expectSecurityHeaders } from '../support/http';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine (the import above
// covers the shared cleanup hooks; this covers the tests of this file).
setDefaultTimeout(120_000);


const email = () => `u${newId().toLowerCase()}@example.com`;
const count = async (db: { query: (text: string, params?: unknown[]) => Promise<unknown[]> }, table: string) =>
  ((await db.query(`SELECT count(*)::int AS n FROM ${table}`)) as { n: number }[])[0]!.n;

for (const backend of backends()) {
  describe(`sessions on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const secure = await testApp(db, { BASE_URL: 'https://dashboard.example.com' }, { mirror: false, workers: false });
    const register = (input: Record<string, unknown>) => t.request('/register', { method: 'POST', json: input });
    const keys = (cookie: string) => t.request('/api/dashboard/keys', { headers: { cookie } });

    describe('happy', () => {
      test('register answers 201 {user_id, org_id} and a working svc_session cookie', async () => {
        const res = await register({ email: email(), password: 'correct horse', organization: 'Acme' });
        expect(res.status).toBe(201);
        expectSecurityHeaders(res);
        const created = await body(res);
        expect(Object.keys(created).sort()).toEqual(['org_id', 'user_id']);
        const setCookie = res.headers.get('set-cookie')!;
        expect(setCookie).toStartWith('svc_session=');
        expect(setCookie).toContain('HttpOnly');
        expect(setCookie).toContain('SameSite=Lax');
        expect(setCookie).toContain('Path=/');
        expect(setCookie).not.toContain('Secure');
        expect((await keys(cookieOf(res))).status).toBe(200);
        const [user] = await db.query<{ org_id: string }>('SELECT org_id FROM users WHERE id = $1', [created.user_id]);
        expect(user?.org_id).toBe(created.org_id);
      });

      test('the cookie is Secure when BASE_URL is https', async () => {
        const res = await secure.request('/register', { method: 'POST', json: { email: email(), password: 'correct horse', organization: 'Acme' } });
        expect(res.status).toBe(201);
        expect(res.headers.get('set-cookie')).toContain('; Secure');
      });

      test('login answers 200 with a new session; the email is matched without regard to case', async () => {
        const address = email();
        await register({ email: address, password: 'correct horse', organization: 'Acme' });
        const res = await t.request('/login', { method: 'POST', json: { email: address.toUpperCase(), password: 'correct horse' } });
        expect(res.status).toBe(200);
        expect(res.headers.get('set-cookie')).toContain('HttpOnly');
        expect((await keys(cookieOf(res))).status).toBe(200);
      });

      test('the password is stored as argon2id, never in clear', async () => {
        const address = email();
        const password = `pw-${newId()}`;
        const res = await register({ email: address, password, organization: 'Acme' });
        const [row] = await db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [(await body(res)).user_id]);
        expect(row!.password_hash).toStartWith('$argon2id$');
        expect(row!.password_hash).not.toContain(password);
        expect(await Bun.password.verify(password, row!.password_hash)).toBe(true);
        const everywhere = await db.query("SELECT 1 FROM users WHERE email = $1 AND (password_hash LIKE '%' || $2 || '%')", [address, password]);
        expect(everywhere).toEqual([]);
      });

      test('logout revokes the session server-side: the old cookie then answers 401', async () => {
        const res = await register({ email: email(), password: 'correct horse', organization: 'Acme' });
        const cookie = cookieOf(res);
        const out = await t.request('/logout', { method: 'POST', headers: { cookie } });
        expect(out.status).toBe(200);
        expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
        const replay = await keys(cookie);
        expect(replay.status).toBe(401);
        expect(await body(replay)).toEqual({ error: 'unauthorized' });
      });

      test('logout of one session leaves the user’s other sessions alone', async () => {
        const address = email();
        const first = cookieOf(await register({ email: address, password: 'correct horse', organization: 'Acme' }));
        const second = cookieOf(await t.request('/login', { method: 'POST', json: { email: address, password: 'correct horse' } }));
        await t.request('/logout', { method: 'POST', headers: { cookie: first } });
        expect((await keys(first)).status).toBe(401);
        expect((await keys(second)).status).toBe(200);
      });
    });

    describe('errors', () => {
      test('a duplicate email answers 409 (case-insensitive) and creates no organization', async () => {
        const address = email();
        expect((await register({ email: address, password: 'correct horse', organization: 'First' })).status).toBe(201);
        const orgs = await count(db, 'organizations');
        const res = await register({ email: address.toUpperCase(), password: 'another one', organization: 'Second' });
        expect(res.status).toBe(409);
        expect(await body(res)).toEqual({ error: 'email taken' });
        expect(await count(db, 'organizations')).toBe(orgs);
      });

      test('invalid registrations answer 400 with field errors and change nothing', async () => {
        const before = [await count(db, 'users'), await count(db, 'organizations')];
        const cases: [Record<string, unknown>, string][] = [
          [{ email: 'not-an-email', password: 'correct horse', organization: 'Acme' }, 'email'],
          [{ email: email(), password: 'short', organization: 'Acme' }, 'password'],
          [{ email: email(), password: 'correct horse', organization: '' }, 'organization'],
          [{ email: email(), password: 'correct horse' }, 'organization'],
        ];
        for (const [input, field] of cases) {
          const res = await register(input);
          expect(res.status).toBe(400);
          const error = (await body(res)).error;
          expect(error.formErrors).toBeArray();
          expect(Object.keys(error.fieldErrors)).toEqual([field]);
        }
        expect([await count(db, 'users'), await count(db, 'organizations')]).toEqual(before);
      });

      test('a body that is not JSON answers 400, not 422', async () => {
        const res = await t.request('/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":' });
        expect(res.status).toBe(400);
        expect((await body(res)).error.formErrors).toEqual(['the body is not valid JSON']);
      });

      test('wrong password and unknown email both answer 401 {"error":"unauthorized"} without a cookie', async () => {
        const address = email();
        await register({ email: address, password: 'correct horse', organization: 'Acme' });
        for (const attempt of [{ email: address, password: 'wrong horse' }, { email: email(), password: 'correct horse' }]) {
          const res = await t.request('/login', { method: 'POST', json: attempt });
          expect(res.status).toBe(401);
          expect(await res.text()).toBe('{"error":"unauthorized"}');
          expect(res.headers.get('set-cookie')).toBeNull();
        }
      });

      test('GET on /logout answers 405; /login and /register are the web app\'s pages, other methods 405', async () => {
        const logout = await t.request('/logout');
        expect(logout.status).toBe(405);
        expect(logout.headers.get('allow')).toBe('POST');
        for (const path of ['/login', '/register']) {
          const page = await t.request(path);
          expect(page.status).toBe(200);
          expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
          const res = await t.request(path, { method: 'PUT', headers: { origin: 'http://api.test.local' }, json: {} });
          expect(res.status).toBe(405);
          expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'POST']);
        }
      });
    });

    describe('security', () => {
      const sessionOf = async () => {
        const res = await register({ email: email(), password: 'correct horse', organization: 'Acme' });
        const token = cookieOf(res).slice('svc_session='.length);
        const { user_id: userId, org_id: orgId } = await body(res);
        const [header, payload] = token.split('.');
        return { token, userId, orgId, header: header!, payload: JSON.parse(Buffer.from(payload!, 'base64url').toString()) };
      };
      const withToken = (token: string) => keys(`svc_session=${token}`);

      test('a tampered token answers 401', async () => {
        const { token, payload } = await sessionOf();
        const [header, , signature] = token.split('.');
        const forged = Buffer.from(JSON.stringify({ ...payload, org: 'another-org' })).toString('base64url');
        expect((await withToken(`${header}.${forged}.${signature}`)).status).toBe(401);
        expect((await withToken(token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'))).status).toBe(401);
      });

      test('a token signed with a foreign secret answers 401', async () => {
        const { payload } = await sessionOf();
        const foreign = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('some-other-secret-that-is-long-enough-00'));
        expect((await withToken(foreign)).status).toBe(401);
      });

      test('an expired token answers 401 even though its session row is live', async () => {
        const { payload } = await sessionOf();
        const expired = await new SignJWT({ ...payload, iat: 1_000, exp: 2_000 })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode(t.config.sessionSecret));
        expect((await withToken(expired)).status).toBe(401);
      });

      test('an unsigned (alg none) token answers 401', async () => {
        const { payload } = await sessionOf();
        expect((await withToken(new UnsecuredJWT(payload).encode())).status).toBe(401);
      });

      test('a valid signature naming another user than the session row answers 401', async () => {
        const first = await sessionOf();
        const second = await sessionOf();
        const mixed = await new SignJWT({ ...first.payload, sub: second.userId })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode(t.config.sessionSecret));
        expect((await withToken(mixed)).status).toBe(401);
      });

      test('a session whose row has expired answers 401', async () => {
        const { token, payload } = await sessionOf();
        await db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [payload.jti]);
        expect((await withToken(token)).status).toBe(401);
      });

      test('no cookie, an empty cookie or garbage answers 401', async () => {
        expect((await t.request('/api/dashboard/keys')).status).toBe(401);
        expect((await withToken('')).status).toBe(401);
        expect((await withToken('not.a.jwt')).status).toBe(401);
      });

      test('an API key is not a session', async () => {
        const res = await register({ email: email(), password: 'correct horse', organization: 'Acme' });
        const created = await body(await t.request('/api/dashboard/keys', { method: 'POST', headers: { cookie: cookieOf(res) }, json: { name: 'k' } }));
        const viaKey = await t.request('/api/dashboard/keys', { headers: { authorization: `Bearer ${created.api_key}` } });
        expect(viaKey.status).toBe(401);
      });
    });
  });
}
