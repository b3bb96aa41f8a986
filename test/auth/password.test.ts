import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createUser } from '../../src/auth/accounts.service';
import { newId } from '../../src/shared/ids';
import { body, testApp, type TestApp } from '../support/app';
import { backends } from '../support/db';
import { cookieOf, expectSecurityHeaders } from '../support/http';
import { awayFromWindowEnd } from '../support/rate-window';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine.
setDefaultTimeout(120_000);

const PASSWORD = 'correct horse';

/** A user signed in through /register, with a second session from /login. */
async function userWithTwoSessions(t: TestApp) {
  const email = `u${newId().toLowerCase()}@example.com`;
  const registered = await t.request('/register', { method: 'POST', json: { email, password: PASSWORD, organization: 'Acme' } });
  const { user_id: userId, org_id: orgId } = await body(registered);
  const other = await t.request('/login', { method: 'POST', json: { email, password: PASSWORD } });
  return { email, userId, orgId, cookie: cookieOf(registered), otherCookie: cookieOf(other) };
}

for (const backend of backends()) {
  describe(`password change and ending sessions on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db);
    const alive = async (cookie: string) => (await t.request('/api/dashboard/keys', { headers: { cookie } })).status === 200;
    const login = async (email: string, password: string) => (await t.request('/login', { method: 'POST', json: { email, password } })).status;
    const change = (cookie: string, json: unknown, headers: Record<string, string> = {}) =>
      t.request('/api/dashboard/password', { method: 'POST', headers: { cookie, ...headers }, json });
    const revokeAll = (cookie: string, headers: Record<string, string> = {}) =>
      t.request('/api/dashboard/sessions/revoke-all', { method: 'POST', headers: { cookie, ...headers } });

    describe('happy', () => {
      test('a password change keeps this session, ends every other one, and the new password signs in', async () => {
        const user = await userWithTwoSessions(t);
        const res = await change(user.cookie, { current_password: PASSWORD, new_password: 'battery staple' });
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        expect(await body(res)).toEqual({ ok: true, ended_sessions: 1 });
        expect(res.headers.get('set-cookie')).toBeNull();
        expect(await alive(user.cookie)).toBe(true);
        expect(await alive(user.otherCookie)).toBe(false);
        const replay = await t.request('/api/dashboard/keys', { headers: { cookie: user.otherCookie } });
        expect(replay.status).toBe(401);
        expect(await body(replay)).toEqual({ error: 'unauthorized' });
        expect(await login(user.email, PASSWORD)).toBe(401);
        expect(await login(user.email, 'battery staple')).toBe(200);
        const [audit] = await db.query<{ user_id: string; action: string; entity: string }>(
          "SELECT user_id, action, entity FROM audit_log WHERE org_id = $1 AND entity = 'password'",
          [user.orgId],
        );
        expect(audit).toEqual({ user_id: user.userId, action: 'update', entity: 'password' });
      });

      test('log out everywhere ends every session of the user, this one included, and clears the cookie', async () => {
        const user = await userWithTwoSessions(t);
        const res = await revokeAll(user.cookie);
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ ok: true, ended_sessions: 2 });
        expect(res.headers.get('set-cookie')).toContain('Max-Age=0');
        expect(await alive(user.cookie)).toBe(false);
        expect(await alive(user.otherCookie)).toBe(false);
        // The password is unchanged: signing in again works.
        expect(await login(user.email, PASSWORD)).toBe(200);
      });
    });

    describe('errors', () => {
      test('a wrong current password answers 400 naming current_password and changes nothing', async () => {
        const user = await userWithTwoSessions(t);
        const res = await change(user.cookie, { current_password: 'not my password', new_password: 'battery staple' });
        expect(res.status).toBe(400);
        expect(await body(res)).toEqual({ error: { formErrors: [], fieldErrors: { current_password: ['does not match'] } } });
        expect(await alive(user.otherCookie)).toBe(true);
        expect(await login(user.email, PASSWORD)).toBe(200);
        expect(await login(user.email, 'battery staple')).toBe(401);
      });

      test('the new password is validated like a registration’s', async () => {
        const user = await userWithTwoSessions(t);
        const cases: [unknown, string][] = [
          [{ current_password: PASSWORD, new_password: 'short' }, 'new_password'],
          [{ current_password: PASSWORD, new_password: 'x'.repeat(257) }, 'new_password'],
          [{ current_password: PASSWORD }, 'new_password'],
          [{ new_password: 'battery staple' }, 'current_password'],
        ];
        for (const [input, field] of cases) {
          const res = await change(user.cookie, input);
          expect(res.status).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual([field]);
        }
        expect(await alive(user.otherCookie)).toBe(true);
        expect(await login(user.email, PASSWORD)).toBe(200);
      });

      test('without a session both answer 401; GET answers 405', async () => {
        expect((await t.request('/api/dashboard/password', { method: 'POST', json: { current_password: PASSWORD, new_password: 'battery staple' } })).status).toBe(401);
        expect((await t.request('/api/dashboard/sessions/revoke-all', { method: 'POST' })).status).toBe(401);
        expect((await t.request('/api/dashboard/password')).status).toBe(405);
        expect((await t.request('/api/dashboard/sessions/revoke-all')).status).toBe(405);
      });
    });

    describe('security', () => {
      test('another organization’s user, and another user of the same organization, keep their sessions', async () => {
        const user = await userWithTwoSessions(t);
        const stranger = await userWithTwoSessions(t);
        const colleagueEmail = `c${newId().toLowerCase()}@example.com`;
        await createUser(db, { orgId: user.orgId, email: colleagueEmail, password: PASSWORD });
        const colleague = cookieOf(await t.request('/login', { method: 'POST', json: { email: colleagueEmail, password: PASSWORD } }));
        expect((await change(user.cookie, { current_password: PASSWORD, new_password: 'battery staple' })).status).toBe(200);
        expect((await revokeAll(user.cookie)).status).toBe(200);
        for (const cookie of [stranger.cookie, stranger.otherCookie, colleague]) expect(await alive(cookie)).toBe(true);
        expect(await login(stranger.email, PASSWORD)).toBe(200);
        expect(await login(colleagueEmail, PASSWORD)).toBe(200);
      });

      test('the cross-site rules apply: a foreign Origin is 403, a form is 415, and nothing changes', async () => {
        const user = await userWithTwoSessions(t);
        const foreign = { origin: 'https://attacker.example' };
        expect((await change(user.cookie, { current_password: PASSWORD, new_password: 'battery staple' }, foreign)).status).toBe(403);
        expect((await revokeAll(user.cookie, foreign)).status).toBe(403);
        const form = await t.request('/api/dashboard/password', {
          method: 'POST',
          headers: { cookie: user.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: `current_password=${encodeURIComponent(PASSWORD)}&new_password=battery+staple`,
        });
        expect(form.status).toBe(415);
        expect(await alive(user.otherCookie)).toBe(true);
        expect(await login(user.email, PASSWORD)).toBe(200);
      });

      test('password changes share the sign-in budget: 20 a minute per client, then 429', async () => {
        await awayFromWindowEnd();
        const limited = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: '1' });
        const client = { 'x-forwarded-for': '198.51.100.30' };
        const email = `r${newId().toLowerCase()}@example.com`;
        const registered = await limited.request('/register', { method: 'POST', headers: client, json: { email, password: PASSWORD, organization: 'Acme' } });
        const cookie = cookieOf(registered);
        for (let i = 0; i < 19; i++) {
          const res = await limited.request('/api/dashboard/password', { method: 'POST', headers: { cookie, ...client }, json: { current_password: `guess ${i}`, new_password: 'battery staple' } });
          expect(res.status).toBe(400);
        }
        const over = await limited.request('/api/dashboard/password', { method: 'POST', headers: { cookie, ...client }, json: { current_password: PASSWORD, new_password: 'battery staple' } });
        expect(over.status).toBe(429);
        expect((await body(over)).error).toBe('rate_limited');
        expect((await limited.request('/login', { method: 'POST', headers: client, json: { email, password: PASSWORD } })).status).toBe(429);
      });
    });
  });
}
