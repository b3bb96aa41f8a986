import { describe, expect, test } from 'bun:test';
import { isSessionWrite } from '../../src/http/session-writes';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertLink } from '../support/fixtures';
import { inviteMember, PASSWORD, registerOwner, sessionCall } from '../support/members';

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
/** Session writes an analyst may make: their own account, and the route test, which stores nothing. */
const ANY_ROLE = ['POST /api/dashboard/password', 'POST /api/dashboard/route-test', 'POST /api/dashboard/sessions/revoke-all'];
/** Writes with no session to check: signing in and out, and taking an invite up (its token is the credential). */
const NO_SESSION = ['POST /login', 'POST /logout', 'POST /register', 'POST /api/dashboard/invites/accept'];

for (const backend of backends()) {
  describe(`an analyst's writes on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const call = sessionCall(t);

    /** Every row of every table with an org_id, for one organization: what "changes nothing" compares. */
    async function organizationState(orgId: string): Promise<Record<string, string>> {
      const tables = await db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.columns WHERE column_name = 'org_id' AND table_schema = current_schema() ORDER BY table_name",
      );
      const state: Record<string, string> = {};
      for (const { table_name } of tables) {
        const rows = await db.query<{ digest: string | null }>(`SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS digest FROM "${table_name}" t WHERE org_id = $1`, [orgId]);
        state[table_name] = rows[0]!.digest ?? '';
      }
      return state;
    }

    // Every session write the app serves, found from its routes: a route added later is swept too.
    const writes = t.app.routes
      .filter((route) => WRITE_METHODS.includes(route.method) && isSessionWrite(route.method, route.path))
      .map((route) => `${route.method} ${route.path}`)
      .filter((route, i, all) => all.indexOf(route) === i)
      .sort();

    test('the sweep finds the session writes, and exempts only the listed ones', () => {
      expect(writes.length).toBeGreaterThan(20);
      for (const path of ['POST /api/protect/sync', 'PATCH /api/dashboard/links/:id', 'DELETE /api/dashboard/apps/:id', 'POST /api/dashboard/invites']) expect(writes).toContain(path);
      expect(writes.filter((route) => ANY_ROLE.includes(route) || NO_SESSION.includes(route))).toEqual([...ANY_ROLE, ...NO_SESSION].sort());
    });

    test('every other session write is 403 for an analyst, before its body is read, and changes nothing', async () => {
      const owner = await registerOwner(t);
      const analyst = await inviteMember(t, owner, 'analyst');
      const { linkId } = await insertLink(db, owner.orgId);
      const app = await body(await call(owner.cookie, 'POST', '/api/dashboard/apps', { name: 'Shop', platform: 'ios' }));
      const key = await body(await call(owner.cookie, 'POST', '/api/dashboard/keys', { name: 'server' }));
      const campaign = await body(await call(owner.cookie, 'POST', '/api/dashboard/campaigns', { name: 'Spring' }));
      const invite = await body(await call(owner.cookie, 'POST', '/api/dashboard/invites', { email: 'later@example.com', role: 'admin' }));
      const ids: Record<string, string> = { links: linkId, apps: app.id, keys: key.id, campaigns: campaign.id, members: owner.userId, invites: invite.id };
      const concrete = (path: string) => path.replace(/\/([^/]+)\/:[a-z_]+/g, (_, parent: string) => `/${parent}/${ids[parent] ?? 'unknown'}`);

      const before = await organizationState(owner.orgId);
      const refused: string[] = [];
      for (const route of writes.filter((r) => !ANY_ROLE.includes(r) && !NO_SESSION.includes(r))) {
        const [method, path] = route.split(' ') as [string, string];
        // A valid-looking body and an empty one: neither gets past the role.
        for (const json of [{ name: 'changed', status: 'paused', role: 'owner' }, undefined]) {
          const res = await call(analyst.cookie, method, concrete(path), json);
          if (res.status === 403 && (await body(res)).error === 'read-only role') continue;
          refused.push(`${route} -> ${res.status}`);
        }
      }
      expect(refused).toEqual([]);
      expect(await organizationState(owner.orgId)).toEqual(before);
    });

    test('an analyst reads everything and may still change their own password and run a route test', async () => {
      const owner = await registerOwner(t);
      const analyst = await inviteMember(t, owner, 'analyst');
      for (const path of ['/api/dashboard/links', '/api/dashboard/apps', '/api/dashboard/keys', '/api/dashboard/campaigns', '/api/dashboard/members', '/api/dashboard/invites', '/api/dashboard/audit', '/api/dashboard/settings']) {
        expect([path, (await call(analyst.cookie, 'GET', path)).status]).toEqual([path, 200]);
      }
      const changed = await call(analyst.cookie, 'POST', '/api/dashboard/password', { current_password: PASSWORD, new_password: 'a new horse battery' });
      expect(changed.status).toBe(200);
      const routeTest = await call(analyst.cookie, 'POST', '/api/dashboard/route-test', { slug: 'nothing-here', user_agent: 'Mozilla/5.0', ip: '192.0.2.1' });
      expect(routeTest.status).not.toBe(403);
    });
  });
}
