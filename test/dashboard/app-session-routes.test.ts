import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { inviteMember, registerOwner, sessionCall } from '../support/members';
import { hashedDeviceId } from '../support/sdk-fixtures';
import { findOrgApps } from '../../src/growth/impressions.repo';
import { appInOrg } from '../../src/sdk/forwarder.repo';
import { findAppByAppStoreId } from '../../src/skan/skan.repo';
import { findStoreApps } from '../../src/subscriptions/subscriptions.repo';

for (const backend of backends()) {
  describe(`apps edit, delete and SDK key rotation (session) on ${backend.name}`, async () => {
    const db = await backend.create();
    // Workers on: the node's key-change listener clears its SDK key cache as in production.
    const t = await testApp(db, {}, { mirror: false });
    const call = sessionCall(t);
    const install = (key: string) => t.request('/api/sdk/v1/install', { method: 'POST', headers: { 'x-sdk-key': key }, json: { device_id: hashedDeviceId(), platform: 'ios' } });
    const newApp = async (cookie: string) => body(await call(cookie, 'POST', '/api/dashboard/apps', { name: 'Shop', platform: 'ios', bundle_id: 'com.example.shop' }));

    test('a rotated SDK key is refused at once; the new one works; the audit names the rotation', async () => {
      const owner = await registerOwner(t);
      const app = await newApp(owner.cookie);
      expect((await install(app.sdk_key)).status).toBe(201);
      const rotated = await call(owner.cookie, 'POST', `/api/dashboard/apps/${app.id}/rotate-sdk-key`);
      expect(rotated.status).toBe(200);
      const answer = await body(rotated);
      expect(answer).toMatchObject({ id: app.id, name: 'Shop' });
      expect(answer.sdk_key).toMatch(/^sk_[A-Za-z0-9]{32}$/);
      expect(answer.sdk_key).not.toBe(app.sdk_key);
      const old = await install(app.sdk_key);
      expect(old.status).toBe(401);
      expect(await body(old)).toEqual({ error: 'unauthorized' });
      expect((await install(answer.sdk_key)).status).toBe(201);
      const audit = await db.query<{ action: string; entity: string; detail: string }>("SELECT action, entity, detail::text AS detail FROM audit_log WHERE org_id = $1 AND entity = 'sdk_key'", [owner.orgId]);
      expect(audit.map((row) => row.action)).toEqual(['rotate']);
      expect(audit[0]!.detail).not.toContain('sk_');
    });

    test('an edit changes only the fields sent; platform and bundle id stay fixed', async () => {
      const owner = await registerOwner(t);
      const app = await newApp(owner.cookie);
      const edited = await call(owner.cookie, 'PATCH', `/api/dashboard/apps/${app.id}`, { name: 'Shop 2', store_url: 'https://apps.apple.com/app/id1', reattribution_days: 30 });
      expect(await body(edited)).toMatchObject({ name: 'Shop 2', store_url: 'https://apps.apple.com/app/id1', reattribution_days: 30, platform: 'ios', bundle_id: 'com.example.shop', sdk_key: app.sdk_key });
      const fixed = await call(owner.cookie, 'PATCH', `/api/dashboard/apps/${app.id}`, { platform: 'android' });
      expect(fixed.status).toBe(400);
      expect((await body(fixed)).error.fieldErrors).toEqual({ platform: ['unknown field'] });
    });

    test('a deleted app leaves the list, its key is refused, and a second delete is 404', async () => {
      const owner = await registerOwner(t);
      const app = await newApp(owner.cookie);
      expect((await install(app.sdk_key)).status).toBe(201);
      const deleted = await call(owner.cookie, 'DELETE', `/api/dashboard/apps/${app.id}`);
      expect(await body(deleted)).toEqual({ ok: true, id: app.id });
      expect((await body(await call(owner.cookie, 'GET', '/api/dashboard/apps'))).data).toEqual([]);
      expect((await install(app.sdk_key)).status).toBe(401);
      expect((await call(owner.cookie, 'DELETE', `/api/dashboard/apps/${app.id}`)).status).toBe(404);
      expect((await call(owner.cookie, 'PATCH', `/api/dashboard/apps/${app.id}`, { name: 'Back' })).status).toBe(404);
      expect((await call(owner.cookie, 'POST', `/api/dashboard/apps/${app.id}/rotate-sdk-key`)).status).toBe(404);
      // Its rows stay for the reports that name it.
      expect((await db.query('SELECT 1 FROM installs WHERE app_id = $1', [app.id])).length).toBe(1);
      // And nothing new is tied to it: store notifications, SKAN postbacks, impressions and the forwarder look past it.
      await db.query("UPDATE apps SET apple_app_id = '9990001' WHERE id = $1", [app.id]);
      expect((await findStoreApps(db, 'apple', 'com.example.shop')).map((found) => found.id)).not.toContain(app.id);
      expect(await findAppByAppStoreId(db, owner.orgId, '9990001')).toBeNull();
      expect(await findOrgApps(db, owner.orgId, [app.id])).toEqual(new Set());
      expect(await appInOrg(db, owner.orgId, app.id)).toBe(false);
    });

    test("another organization's app is 404 and unchanged; no session 401; an analyst 403", async () => {
      const owner = await registerOwner(t);
      const them = await registerOwner(t);
      const theirs = await newApp(them.cookie);
      for (const [method, path] of [['POST', `/api/dashboard/apps/${theirs.id}/rotate-sdk-key`], ['DELETE', `/api/dashboard/apps/${theirs.id}`]] as const) {
        const res = await call(owner.cookie, method, path);
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'app not found' });
        expect((await t.request(path, { method, headers: { origin: 'http://api.test.local' } })).status).toBe(401);
      }
      const analyst = await inviteMember(t, them, 'analyst');
      expect((await call(analyst.cookie, 'POST', `/api/dashboard/apps/${theirs.id}/rotate-sdk-key`)).status).toBe(403);
      expect((await call(analyst.cookie, 'DELETE', `/api/dashboard/apps/${theirs.id}`)).status).toBe(403);
      expect((await body(await call(them.cookie, 'GET', '/api/dashboard/apps'))).data).toEqual([expect.objectContaining({ id: theirs.id, sdk_key: theirs.sdk_key })]);
      expect((await install(theirs.sdk_key)).status).toBe(201);
    });
  });

  describe(`the audit log (session) on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const call = sessionCall(t);

    test('newest first with the actor by email or key prefix; invites, joins and role changes included; pages by cursor', async () => {
      const owner = await registerOwner(t);
      const key = await body(await call(owner.cookie, 'POST', '/api/dashboard/keys', { name: 'server' }));
      await t.request('/api/v1/links', { method: 'POST', headers: { authorization: `Bearer ${key.api_key}` }, json: { destination: 'https://shop.example.com/' } });
      const analyst = await inviteMember(t, owner, 'analyst');
      await call(owner.cookie, 'PATCH', `/api/dashboard/members/${analyst.userId}`, { role: 'admin' });
      const page = await body(await call(analyst.cookie, 'GET', '/api/dashboard/audit'));
      const seen = page.data.map((entry: { action: string; entity: string; actor: { kind: string; email?: string; prefix?: string } }) => [entry.action, entry.entity, entry.actor.email ?? entry.actor.prefix]);
      expect(seen).toEqual([
        ['update', 'member', owner.email],
        ['join', 'member', analyst.email],
        ['invite', 'member', owner.email],
        ['create', 'link', key.prefix],
        ['create', 'api_key', owner.email],
      ]);
      expect(page.data[0].detail).toEqual({ email: analyst.email, role: { from: 'analyst', to: 'admin' } });
      const first = await body(await call(owner.cookie, 'GET', '/api/dashboard/audit?limit=2'));
      const second = await body(await call(owner.cookie, 'GET', `/api/dashboard/audit?limit=2&cursor=${first.next_cursor}`));
      expect([...first.data, ...second.data].map((entry: { id: string }) => entry.id)).toEqual(page.data.slice(0, 4).map((entry: { id: string }) => entry.id));
    });

    test("bad input 400; no session 401; another organization's rows and cursors are not shown", async () => {
      const owner = await registerOwner(t);
      const them = await registerOwner(t);
      await call(them.cookie, 'POST', '/api/dashboard/keys', { name: 'theirs' });
      await call(them.cookie, 'POST', '/api/dashboard/keys', { name: 'theirs 2' });
      expect((await t.request('/api/dashboard/audit')).status).toBe(401);
      const bad = await call(owner.cookie, 'GET', '/api/dashboard/audit?limit=5000');
      expect(bad.status).toBe(400);
      expect(Object.keys((await body(bad)).error.fieldErrors)).toEqual(['limit']);
      expect((await body(await call(owner.cookie, 'GET', '/api/dashboard/audit'))).data).toEqual([]);
      const theirPage = await body(await call(them.cookie, 'GET', '/api/dashboard/audit?limit=1'));
      const foreign = await call(owner.cookie, 'GET', `/api/dashboard/audit?cursor=${theirPage.next_cursor}`);
      expect(foreign.status).toBe(400);
      expect(Object.keys((await body(foreign)).error.fieldErrors)).toEqual(['cursor']);
    });
  });
}
