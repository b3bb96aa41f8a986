import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertLink } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { registerAccount } from '../protect/support';

const ORIGIN = 'http://api.test.local';

for (const backend of backends()) {
  describe(`session routes for links and apps on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const call = (cookie: string, method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
      t.request(path, { method, headers: { cookie, origin: ORIGIN, ...headers }, json });

    test('a link created, listed, paused and resumed; the audit log names the user', async () => {
      const me = await registerAccount(t);
      const created = await call(me.cookie, 'POST', '/api/dashboard/links', { destination: 'https://shop.example.com/a', slug: `d${Date.now()}` });
      expect(created.status).toBe(201);
      expectSecurityHeaders(created);
      const link = await body(created);
      expect(link).toMatchObject({ kind: 'tracking', status: 'active', destination: 'https://shop.example.com/a' });
      expect((await body(await call(me.cookie, 'GET', '/api/dashboard/links'))).data.map((l: { id: string }) => l.id)).toEqual([link.id]);
      const paused = await call(me.cookie, 'PATCH', `/api/dashboard/links/${link.id}`, { status: 'paused' });
      expect(paused.status).toBe(200);
      expect((await body(paused)).status).toBe('paused');
      expect((await body(await call(me.cookie, 'GET', `/api/dashboard/links/${link.id}`))).status).toBe('paused');
      const audit = await db.query<{ user_id: string | null; api_key_id: string | null; action: string }>(
        "SELECT user_id, api_key_id, action FROM audit_log WHERE entity = 'link' AND entity_id = $1 ORDER BY created_at",
        [link.id],
      );
      expect(audit.map((row) => row.action)).toEqual(['create', 'update']);
      expect(audit.every((row) => row.user_id !== null && row.api_key_id === null)).toBe(true);
    });

    test('an app created with its SDK key, listed for its organization only', async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      const created = await call(me.cookie, 'POST', '/api/dashboard/apps', { name: 'Shop', platform: 'ios', bundle_id: 'com.example.shop' });
      expect(created.status).toBe(201);
      const app = await body(created);
      expect(app.sdk_key).toMatch(/^sk_[A-Za-z0-9]{32}$/);
      expect((await body(await call(me.cookie, 'GET', '/api/dashboard/apps'))).data.map((a: { id: string }) => a.id)).toEqual([app.id]);
      expect((await body(await call(them.cookie, 'GET', '/api/dashboard/apps'))).data).toEqual([]);
    });

    test('bad bodies answer 400 naming the field, and nothing is stored', async () => {
      const me = await registerAccount(t);
      const res = await call(me.cookie, 'POST', '/api/dashboard/links', { destination: 'ftp://files.example.com/' });
      expect(res.status).toBe(400);
      expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['destination']);
      const rules = await call(me.cookie, 'POST', '/api/dashboard/links', { kind: 'smart', rules: { version: 1, rules: [{ if: { os: 'palm' }, then: { url: 'https://a.example' } }] } });
      expect(rules.status).toBe(400);
      expect(Object.keys((await body(rules)).error.fieldErrors)[0]).toStartWith('rules.');
      const app = await call(me.cookie, 'POST', '/api/dashboard/apps', { name: 'X', platform: 'symbian' });
      expect(app.status).toBe(400);
      expect((await body(await call(me.cookie, 'GET', '/api/dashboard/links'))).data).toEqual([]);
      expect((await body(await call(me.cookie, 'GET', '/api/dashboard/apps'))).data).toEqual([]);
    });

    test("another organization's link reads as unknown and is not changed", async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      const { linkId } = await insertLink(db, them.orgId);
      expect((await call(me.cookie, 'GET', `/api/dashboard/links/${linkId}`)).status).toBe(404);
      const res = await call(me.cookie, 'PATCH', `/api/dashboard/links/${linkId}`, { status: 'paused' });
      expect(res.status).toBe(404);
      expect(await body(res)).toEqual({ error: 'link not found' });
      expect((await db.query<{ status: string }>('SELECT status FROM links WHERE id = $1', [linkId]))[0]!.status).toBe('active');
    });

    test('no session is 401; a foreign origin 403 and a form body 415, before anything is written', async () => {
      const me = await registerAccount(t);
      expect((await t.request('/api/dashboard/links')).status).toBe(401);
      expect((await t.request('/api/dashboard/apps', { method: 'POST', headers: { origin: ORIGIN }, json: { name: 'A', platform: 'ios' } })).status).toBe(401);
      const foreign = await call(me.cookie, 'POST', '/api/dashboard/links', { destination: 'https://a.example' }, { origin: 'https://evil.example' });
      expect(foreign.status).toBe(403);
      const form = await t.request('/api/dashboard/links', {
        method: 'POST',
        headers: { cookie: me.cookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'destination=https%3A%2F%2Fa.example',
      });
      expect(form.status).toBe(415);
      expect((await body(await call(me.cookie, 'GET', '/api/dashboard/links'))).data).toEqual([]);
    });
  });
}
