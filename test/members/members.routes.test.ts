import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { expectSecurityHeaders } from '../support/http';
import { freshEmail, inviteMember, ORIGIN, PASSWORD, registerOwner, sessionCall, tokenOf } from '../support/members';

for (const backend of backends()) {
  describe(`members, invites and roles on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const call = sessionCall(t);
    const accept = (json: unknown) => t.request('/api/dashboard/invites/accept', { method: 'POST', headers: { origin: ORIGIN }, json });
    const members = async (cookie: string) => (await body(await call(cookie, 'GET', '/api/dashboard/members'))).data as { user_id: string; email: string; role: string }[];

    test('the first user is the owner; an invite link joins a new user with its role, once', async () => {
      const owner = await registerOwner(t);
      expect(await members(owner.cookie)).toEqual([expect.objectContaining({ user_id: owner.userId, email: owner.email, role: 'owner' })]);
      const email = freshEmail('analyst');
      const invited = await call(owner.cookie, 'POST', '/api/dashboard/invites', { email, role: 'analyst' });
      expect(invited.status).toBe(201);
      expectSecurityHeaders(invited);
      const invite = await body(invited);
      expect(invite).toMatchObject({ email, role: 'analyst' });
      expect(invite.url).toStartWith('http://api.test.local/invite/');
      // Only the token's hash is stored.
      const stored = await db.query<{ token_hash: string }>('SELECT token_hash FROM invites WHERE id = $1', [invite.id]);
      expect(stored[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored[0]!.token_hash).not.toContain(tokenOf(invite.url));
      expect((await body(await call(owner.cookie, 'GET', '/api/dashboard/invites'))).data.map((i: { id: string }) => i.id)).toEqual([invite.id]);

      const joined = await accept({ token: tokenOf(invite.url), password: PASSWORD });
      expect(joined.status).toBe(200);
      expect(await body(joined)).toMatchObject({ org_id: owner.orgId });
      const cookie = joined.headers.get('set-cookie')!.split(';')[0]!;
      expect((await members(cookie)).map((m) => [m.email, m.role])).toEqual([[owner.email, 'owner'], [email, 'analyst']]);
      // Used once: the same link again is refused, and the invite is no longer open.
      const again = await accept({ token: tokenOf(invite.url), password: PASSWORD });
      expect(again.status).toBe(404);
      expect(await body(again)).toEqual({ error: 'invite not found or expired' });
      expect((await body(await call(owner.cookie, 'GET', '/api/dashboard/invites'))).data).toEqual([]);
      // The new member signs in later with the password set.
      const login = await t.request('/login', { method: 'POST', headers: { origin: ORIGIN }, json: { email, password: PASSWORD } });
      expect(await body(login)).toMatchObject({ org_id: owner.orgId });
    });

    test('an email with an account joins by signing in with its password; a wrong one is 401 and joins nothing', async () => {
      const owner = await registerOwner(t);
      const other = await registerOwner(t);
      const invited = await body(await call(owner.cookie, 'POST', '/api/dashboard/invites', { email: other.email.toUpperCase(), role: 'admin' }));
      const wrong = await accept({ token: tokenOf(invited.url), password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect((await members(owner.cookie)).length).toBe(1);
      const joined = await accept({ token: tokenOf(invited.url), password: PASSWORD });
      expect(joined.status).toBe(200);
      expect(await body(joined)).toEqual({ user_id: other.userId, org_id: owner.orgId });
      expect((await members(owner.cookie)).map((m) => m.role)).toEqual(['owner', 'admin']);
      // Still the owner of the organization they made.
      expect((await members(other.cookie)).map((m) => [m.user_id, m.role])).toEqual([[other.userId, 'owner']]);
    });

    test('an expired or withdrawn invite is refused', async () => {
      const owner = await registerOwner(t);
      const expired = await body(await call(owner.cookie, 'POST', '/api/dashboard/invites', { email: freshEmail(), role: 'admin' }));
      await db.query("UPDATE invites SET expires_at = now() - interval '1 second' WHERE id = $1", [expired.id]);
      expect((await accept({ token: tokenOf(expired.url), password: PASSWORD })).status).toBe(404);
      const withdrawn = await body(await call(owner.cookie, 'POST', '/api/dashboard/invites', { email: freshEmail(), role: 'admin' }));
      const revoked = await call(owner.cookie, 'DELETE', `/api/dashboard/invites/${withdrawn.id}`);
      expect(await body(revoked)).toEqual({ ok: true, id: withdrawn.id });
      expect((await accept({ token: tokenOf(withdrawn.url), password: PASSWORD })).status).toBe(404);
      expect((await call(owner.cookie, 'DELETE', `/api/dashboard/invites/${withdrawn.id}`)).status).toBe(404);
      expect((await members(owner.cookie)).length).toBe(1);
    });

    test('a role change and a removal count from the very next request', async () => {
      const owner = await registerOwner(t);
      const admin = await inviteMember(t, owner, 'admin');
      expect((await call(admin.cookie, 'POST', '/api/dashboard/apps', { name: 'Shop', platform: 'ios' })).status).toBe(201);
      const demoted = await call(owner.cookie, 'PATCH', `/api/dashboard/members/${admin.userId}`, { role: 'analyst' });
      expect(await body(demoted)).toEqual({ user_id: admin.userId, role: 'analyst' });
      const refused = await call(admin.cookie, 'POST', '/api/dashboard/apps', { name: 'Shop 2', platform: 'ios' });
      expect(refused.status).toBe(403);
      expect(await body(refused)).toEqual({ error: 'read-only role' });
      expect((await call(admin.cookie, 'GET', '/api/dashboard/apps')).status).toBe(200);
      const removed = await call(owner.cookie, 'DELETE', `/api/dashboard/members/${admin.userId}`);
      expect(await body(removed)).toEqual({ ok: true, user_id: admin.userId });
      expect((await call(admin.cookie, 'GET', '/api/dashboard/apps')).status).toBe(401);
      expect((await t.request('/login', { method: 'POST', headers: { origin: ORIGIN }, json: { email: admin.email, password: PASSWORD } })).status).toBe(401);
    });

    test('the last owner cannot be demoted or removed; with a second owner they can', async () => {
      const owner = await registerOwner(t);
      const demote = await call(owner.cookie, 'PATCH', `/api/dashboard/members/${owner.userId}`, { role: 'admin' });
      expect(demote.status).toBe(409);
      expect(await body(demote)).toEqual({ error: 'the last owner cannot be removed or demoted' });
      expect((await call(owner.cookie, 'DELETE', `/api/dashboard/members/${owner.userId}`)).status).toBe(409);
      expect((await members(owner.cookie)).map((m) => m.role)).toEqual(['owner']);
      const second = await inviteMember(t, owner, 'owner');
      expect((await call(second.cookie, 'PATCH', `/api/dashboard/members/${owner.userId}`, { role: 'admin' })).status).toBe(200);
      expect((await call(second.cookie, 'DELETE', `/api/dashboard/members/${second.userId}`)).status).toBe(409);
    });

    test('only owners manage members: an admin is 403 and changes nothing', async () => {
      const owner = await registerOwner(t);
      const admin = await inviteMember(t, owner, 'admin');
      for (const [method, path, json] of [
        ['POST', '/api/dashboard/invites', { email: freshEmail(), role: 'owner' }],
        ['PATCH', `/api/dashboard/members/${admin.userId}`, { role: 'owner' }],
        ['DELETE', `/api/dashboard/members/${owner.userId}`, undefined],
      ] as const) {
        const res = await call(admin.cookie, method, path, json);
        expect(res.status).toBe(403);
        expect(await body(res)).toEqual({ error: 'owners only' });
      }
      expect((await members(owner.cookie)).map((m) => m.role)).toEqual(['owner', 'admin']);
      expect((await body(await call(owner.cookie, 'GET', '/api/dashboard/invites'))).data).toEqual([]);
    });

    test('bad input is 400 in the spec shape and stores nothing', async () => {
      const owner = await registerOwner(t);
      const bad = await call(owner.cookie, 'POST', '/api/dashboard/invites', { email: 'not-an-email', role: 'superuser' });
      expect(bad.status).toBe(400);
      expect(Object.keys((await body(bad)).error.fieldErrors).sort()).toEqual(['email', 'role']);
      const extra = await call(owner.cookie, 'PATCH', `/api/dashboard/members/${owner.userId}`, { role: 'owner', admin: true });
      expect(extra.status).toBe(400);
      expect((await body(extra)).error.fieldErrors).toEqual({ admin: ['unknown field'] });
      const short = await accept({ token: 'not-a-token', password: 'short' });
      expect(short.status).toBe(400);
      expect(Object.keys((await body(short)).error.fieldErrors).sort()).toEqual(['password', 'token']);
      expect((await call(owner.cookie, 'GET', '/api/dashboard/members?limit=0')).status).toBe(400);
      expect((await call(owner.cookie, 'GET', '/api/dashboard/members?cursor=nope!')).status).toBe(400);
      const taken = await call(owner.cookie, 'POST', '/api/dashboard/invites', { email: owner.email, role: 'admin' });
      expect(taken.status).toBe(409);
      expect(await body(taken)).toEqual({ error: 'already a member' });
      expect((await body(await call(owner.cookie, 'GET', '/api/dashboard/invites'))).data).toEqual([]);
    });

    test("no session is 401; another organization's members and invites read as unknown", async () => {
      const owner = await registerOwner(t);
      const them = await registerOwner(t);
      const theirInvite = await body(await call(them.cookie, 'POST', '/api/dashboard/invites', { email: freshEmail(), role: 'admin' }));
      expect((await t.request('/api/dashboard/members')).status).toBe(401);
      expect((await t.request('/api/dashboard/invites', { method: 'POST', headers: { origin: ORIGIN }, json: { email: freshEmail(), role: 'admin' } })).status).toBe(401);
      expect((await call(owner.cookie, 'PATCH', `/api/dashboard/members/${them.userId}`, { role: 'analyst' })).status).toBe(404);
      expect((await call(owner.cookie, 'DELETE', `/api/dashboard/members/${them.userId}`)).status).toBe(404);
      expect((await call(owner.cookie, 'DELETE', `/api/dashboard/invites/${theirInvite.id}`)).status).toBe(404);
      expect((await members(them.cookie)).map((m) => m.role)).toEqual(['owner']);
      expect((await body(await call(them.cookie, 'GET', '/api/dashboard/invites'))).data.map((i: { id: string }) => i.id)).toEqual([theirInvite.id]);
      // A members page's cursor is bound to its organization.
      await inviteMember(t, them, 'admin');
      const page = await body(await call(them.cookie, 'GET', '/api/dashboard/members?limit=1'));
      expect(page.next_cursor).toBeString();
      expect((await call(owner.cookie, 'GET', `/api/dashboard/members?cursor=${page.next_cursor}`)).status).toBe(400);
      const next = await body(await call(them.cookie, 'GET', `/api/dashboard/members?limit=1&cursor=${page.next_cursor}`));
      expect(next.data.length).toBe(1);
      expect(next.data[0].user_id).not.toBe(page.data[0].user_id);
    });
  });
}
