import { describe, expect, test } from 'bun:test';
import { issueApiKey } from '../../src/auth/api-keys';
import { TIME_ZONE_ERROR, CURRENCY_ERROR } from '../../src/settings/settings.model';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { registerAccount } from '../protect/support';

const ORIGIN = 'http://api.test.local';

for (const backend of backends()) {
  describe(`reporting settings on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const api = (headers: Record<string, string>, method = 'GET', json?: unknown) => t.request('/api/v1/settings', { method, headers, json });
    const dashboard = (cookie: string, method = 'GET', json?: unknown, headers: Record<string, string> = {}) =>
      t.request('/api/dashboard/settings', { method, headers: { cookie, origin: ORIGIN, ...headers }, json });
    const stored = async (orgId: string) => (await db.query<{ timezone: string; currency: string }>('SELECT timezone, currency FROM organizations WHERE id = $1', [orgId]))[0];
    const audits = (orgId: string) =>
      db.query<Record<string, any>>("SELECT action, entity_id, api_key_id, user_id, detail FROM audit_log WHERE org_id = $1 AND entity = 'settings' ORDER BY created_at, id", [orgId]);

    describe('happy', () => {
      test('a new organization reports in UTC and USD', async () => {
        const org = await orgWithKey(db);
        const res = await api(org.auth);
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        expect(await body(res)).toEqual({ timezone: 'UTC', currency: 'USD' });
      });

      test('PUT changes the fields given, keeps the others, and is audited with the key', async () => {
        const org = await orgWithKey(db);
        const zone = await api(org.auth, 'PUT', { timezone: 'Europe/Berlin' });
        expect(zone.status).toBe(200);
        expect(await body(zone)).toEqual({ timezone: 'Europe/Berlin', currency: 'USD' });
        expect(await body(await api(org.auth, 'PUT', { currency: 'EUR' }))).toEqual({ timezone: 'Europe/Berlin', currency: 'EUR' });
        expect(await body(await api(org.auth, 'PUT', { timezone: 'America/New_York', currency: 'GBP' }))).toEqual({ timezone: 'America/New_York', currency: 'GBP' });
        expect(await body(await api(org.auth))).toEqual({ timezone: 'America/New_York', currency: 'GBP' });
        expect(await audits(org.orgId)).toEqual([
          { action: 'update', entity_id: org.orgId, api_key_id: org.keyId, user_id: null, detail: { timezone: { from: 'UTC', to: 'Europe/Berlin' } } },
          { action: 'update', entity_id: org.orgId, api_key_id: org.keyId, user_id: null, detail: { currency: { from: 'USD', to: 'EUR' } } },
          {
            action: 'update', entity_id: org.orgId, api_key_id: org.keyId, user_id: null,
            detail: { timezone: { from: 'Europe/Berlin', to: 'America/New_York' }, currency: { from: 'EUR', to: 'GBP' } },
          },
        ]);
      });

      test('a zone is stored as the runtime spells it', async () => {
        const org = await orgWithKey(db);
        expect(await body(await api(org.auth, 'PUT', { timezone: 'europe/berlin' }))).toEqual({ timezone: 'Europe/Berlin', currency: 'USD' });
        expect(await stored(org.orgId)).toEqual({ timezone: 'Europe/Berlin', currency: 'USD' });
      });

      test('the dashboard reads and writes the same settings; the audit row names the user', async () => {
        const me = await registerAccount(t);
        expect(await body(await dashboard(me.cookie))).toEqual({ timezone: 'UTC', currency: 'USD' });
        const res = await dashboard(me.cookie, 'PUT', { timezone: 'Asia/Tokyo', currency: 'JPY' });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ timezone: 'Asia/Tokyo', currency: 'JPY' });
        const key = await issueApiKey(db, { orgId: me.orgId, name: 'same org' });
        expect(await body(await api({ authorization: `Bearer ${key.api_key}` }))).toEqual({ timezone: 'Asia/Tokyo', currency: 'JPY' });
        const [audit] = await audits(me.orgId);
        expect(audit).toMatchObject({ api_key_id: null, user_id: expect.any(String), detail: { timezone: { from: 'UTC', to: 'Asia/Tokyo' }, currency: { from: 'USD', to: 'JPY' } } });
      });
    });

    describe('error', () => {
      test.each([
        [{ timezone: 'Mars/Olympus_Mons' }, 'timezone', TIME_ZONE_ERROR],
        [{ timezone: '+01:00' }, 'timezone', TIME_ZONE_ERROR],
        [{ timezone: '' }, 'timezone', TIME_ZONE_ERROR],
        [{ timezone: `Europe/${'x'.repeat(80)}` }, 'timezone', TIME_ZONE_ERROR],
        [{ timezone: 7 }, 'timezone', TIME_ZONE_ERROR],
        [{ timezone: null }, 'timezone', TIME_ZONE_ERROR],
        [{ currency: 'usd' }, 'currency', CURRENCY_ERROR],
        [{ currency: 'EURO' }, 'currency', CURRENCY_ERROR],
        [{ currency: 'E1R' }, 'currency', CURRENCY_ERROR],
        [{ currency: null }, 'currency', CURRENCY_ERROR],
        [{ timezone: 'Europe/Berlin', currency: 'eu' }, 'currency', CURRENCY_ERROR],
        [{ timezone: 'Nowhere/Land', currency: 'EUR' }, 'timezone', TIME_ZONE_ERROR],
        [{ currency: 'EUR', locale: 'de' }, 'locale', 'unknown field'],
      ])('400 for %j names %s and changes nothing', async (input, field, message) => {
        const org = await orgWithKey(db);
        const res = await api(org.auth, 'PUT', input);
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors[field]).toContain(message);
        expect(await stored(org.orgId)).toEqual({ timezone: 'UTC', currency: 'USD' });
        expect(await audits(org.orgId)).toEqual([]);
      });

      test('a body naming no field, or not an object, is a 400 that changes nothing', async () => {
        const org = await orgWithKey(db);
        const empty = await api(org.auth, 'PUT', {});
        expect(empty.status).toBe(400);
        expect((await body(empty)).error.formErrors).toEqual(['the body names no field to change: timezone, currency']);
        expect((await api(org.auth, 'PUT', ['UTC'])).status).toBe(400);
        expect((await api(org.auth, 'PUT', 'UTC')).status).toBe(400);
        expect((await dashboard((await registerAccount(t)).cookie, 'PUT', { timezone: 'Atlantis/Capital' })).status).toBe(400);
        expect(await stored(org.orgId)).toEqual({ timezone: 'UTC', currency: 'USD' });
      });
    });

    describe('security', () => {
      test('no key, a wrong key or a revoked key is 401 and changes nothing', async () => {
        const org = await orgWithKey(db);
        expect((await api({})).status).toBe(401);
        expect((await api({}, 'PUT', { currency: 'EUR' })).status).toBe(401);
        expect((await api({ authorization: 'Bearer svc_live_00000000000000000000000000000000' }, 'PUT', { currency: 'EUR' })).status).toBe(401);
        await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [org.keyId]);
        expect((await api(org.auth, 'PUT', { currency: 'EUR' })).status).toBe(401);
        expect(await stored(org.orgId)).toEqual({ timezone: 'UTC', currency: 'USD' });
        expect((await t.request('/api/v1/settings', { method: 'DELETE', headers: (await orgWithKey(db)).auth })).status).toBe(405);
      });

      test("a key or a session changes only its own organization's settings, and reads only those", async () => {
        const mine = await orgWithKey(db);
        const theirs = await orgWithKey(db, 'Other');
        const them = await registerAccount(t);
        await api(mine.auth, 'PUT', { timezone: 'Europe/Berlin', currency: 'EUR' });
        expect(await body(await api(theirs.auth))).toEqual({ timezone: 'UTC', currency: 'USD' });
        expect(await body(await dashboard(them.cookie))).toEqual({ timezone: 'UTC', currency: 'USD' });
        await api(theirs.auth, 'PUT', { currency: 'GBP' });
        await dashboard(them.cookie, 'PUT', { timezone: 'Asia/Tokyo' });
        expect(await stored(mine.orgId)).toEqual({ timezone: 'Europe/Berlin', currency: 'EUR' });
        expect(await body(await api(mine.auth))).toEqual({ timezone: 'Europe/Berlin', currency: 'EUR' });
      });

      test('the dashboard needs a session; a foreign Origin or a form body is refused before anything changes', async () => {
        const me = await registerAccount(t);
        expect((await t.request('/api/dashboard/settings')).status).toBe(401);
        expect((await t.request('/api/dashboard/settings', { method: 'PUT', json: { currency: 'EUR' } })).status).toBe(401);
        const key = await issueApiKey(db, { orgId: me.orgId, name: 'a key is no session' });
        expect((await t.request('/api/dashboard/settings', { headers: { authorization: `Bearer ${key.api_key}` } })).status).toBe(401);
        expect((await dashboard(me.cookie, 'PUT', { currency: 'EUR' }, { origin: 'https://evil.example' })).status).toBe(403);
        const form = await t.request('/api/dashboard/settings', { method: 'PUT', headers: { cookie: me.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: 'currency=EUR' });
        expect(form.status).toBe(415);
        expect(await stored(me.orgId)).toEqual({ timezone: 'UTC', currency: 'USD' });
      });
    });
  });
}
