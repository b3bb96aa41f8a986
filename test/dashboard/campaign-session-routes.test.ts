import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertApp } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { registerAccount } from '../protect/support';

const ORIGIN = 'http://api.test.local';

for (const backend of backends()) {
  describe(`session routes for campaigns and exchange rates on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const call = (cookie: string, method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
      t.request(path, { method, headers: { cookie, origin: ORIGIN, ...headers }, json });
    const stored = async (id: string) => (await db.query<Record<string, unknown>>('SELECT name, external_id, partner, app_id, status FROM campaigns WHERE id = $1', [id]))[0];

    describe('campaigns', () => {
      test('created, listed, edited field by field and archived; the audit log names the user', async () => {
        const me = await registerAccount(t);
        const { appId } = await insertApp(db, me.orgId);
        const created = await call(me.cookie, 'POST', '/api/dashboard/campaigns', { name: 'Spring', partner: 'google_ads', external_id: `e${Date.now()}` });
        expect(created.status).toBe(201);
        expectSecurityHeaders(created);
        const campaign = await body(created);
        expect((await body(await call(me.cookie, 'GET', '/api/dashboard/campaigns'))).data.map((c: { id: string }) => c.id)).toEqual([campaign.id]);
        const edited = await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${campaign.id}`, { partner: 'meta', app_id: appId, external_id: null });
        expect(edited.status).toBe(200);
        expect(await body(edited)).toMatchObject({ name: 'Spring', partner: 'meta', app_id: appId, external_id: null, status: 'active' });
        expect(await body(await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${campaign.id}`, { status: 'archived' }))).toMatchObject({ status: 'archived', partner: 'meta' });
        expect(await stored(campaign.id)).toEqual({ name: 'Spring', external_id: null, partner: 'meta', app_id: appId, status: 'archived' });
        const cleared = await body(await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${campaign.id}`, { app_id: null, status: 'active' }));
        expect(cleared).toMatchObject({ app_id: null, status: 'active' });
        const audit = await db.query<{ user_id: string | null; api_key_id: string | null; action: string; detail: unknown }>(
          "SELECT user_id, api_key_id, action, detail FROM audit_log WHERE entity = 'campaign' AND entity_id = $1 ORDER BY created_at, id",
          [campaign.id],
        );
        expect(audit.map((row) => [row.action, row.action === 'update' ? row.detail : null])).toEqual([
          ['create', null],
          ['update', { fields: ['partner', 'external_id', 'app_id'] }],
          ['update', { fields: ['status'] }],
          ['update', { fields: ['app_id', 'status'] }],
        ]);
        expect(audit.every((row) => row.user_id !== null && row.api_key_id === null)).toBe(true);
      });

      test('bad values answer 400 naming each field, a taken external id 409; nothing changes', async () => {
        const me = await registerAccount(t);
        const taken = `taken-${Date.now()}`;
        await call(me.cookie, 'POST', '/api/dashboard/campaigns', { name: 'Holder', external_id: taken });
        const campaign = await body(await call(me.cookie, 'POST', '/api/dashboard/campaigns', { name: 'Mine', partner: 'tiktok' }));
        const before = await stored(campaign.id);
        const bad = await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${campaign.id}`, { name: '', partner: ' meta', status: 'paused', external_id: 'x'.repeat(129) });
        expect(bad.status).toBe(400);
        expect(Object.keys((await body(bad)).error.fieldErrors).sort()).toEqual(['external_id', 'name', 'partner', 'status']);
        const conflict = await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${campaign.id}`, { external_id: taken, partner: 'meta' });
        expect(conflict.status).toBe(409);
        expect(await body(conflict)).toEqual({ error: 'external_id taken' });
        const empty = await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${campaign.id}`, {});
        expect((await body(empty)).error.formErrors).toEqual(['the body names no field to change: name, partner, external_id, app_id, status']);
        const create = await call(me.cookie, 'POST', '/api/dashboard/campaigns', { partner: 'meta' });
        expect(Object.keys((await body(create)).error.fieldErrors)).toEqual(['name']);
        expect(await stored(campaign.id)).toEqual(before);
        expect((await body(await call(me.cookie, 'GET', '/api/dashboard/campaigns'))).data).toHaveLength(2);
      });

      test("another organization's campaign reads as unknown and is not changed; its app is an unknown app", async () => {
        const me = await registerAccount(t);
        const them = await registerAccount(t);
        const theirs = await body(await call(them.cookie, 'POST', '/api/dashboard/campaigns', { name: 'Theirs', partner: 'meta' }));
        const { appId: theirApp } = await insertApp(db, them.orgId);
        const res = await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${theirs.id}`, { partner: 'google_ads', status: 'archived' });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'campaign not found' });
        expect((await body(await call(me.cookie, 'GET', '/api/dashboard/campaigns'))).data).toEqual([]);
        const mine = await body(await call(me.cookie, 'POST', '/api/dashboard/campaigns', { name: 'Mine' }));
        const app = await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${mine.id}`, { app_id: theirApp });
        expect(app.status).toBe(400);
        expect((await body(app)).error.fieldErrors).toEqual({ app_id: ['unknown app'] });
        expect(await stored(theirs.id)).toMatchObject({ partner: 'meta', status: 'active' });
        expect((await stored(mine.id))!.app_id).toBeNull();
      });

      test('no session is 401; a foreign origin 403, before anything is written', async () => {
        const me = await registerAccount(t);
        const campaign = await body(await call(me.cookie, 'POST', '/api/dashboard/campaigns', { name: 'Kept' }));
        expect((await t.request('/api/dashboard/campaigns')).status).toBe(401);
        expect((await t.request(`/api/dashboard/campaigns/${campaign.id}`, { method: 'PATCH', headers: { origin: ORIGIN }, json: { name: 'X' } })).status).toBe(401);
        expect((await call(me.cookie, 'PATCH', `/api/dashboard/campaigns/${campaign.id}`, { name: 'X' }, { origin: 'https://evil.example' })).status).toBe(403);
        expect((await call(me.cookie, 'POST', '/api/dashboard/campaigns', { name: 'Y' }, { origin: 'https://evil.example' })).status).toBe(403);
        expect((await stored(campaign.id))!.name).toBe('Kept');
        expect((await body(await call(me.cookie, 'GET', '/api/dashboard/campaigns'))).data).toHaveLength(1);
      });
    });

    describe('exchange rates', () => {
      test('uploaded and listed for the organization only, quoted in its currency; audited as the user', async () => {
        const me = await registerAccount(t);
        const them = await registerAccount(t);
        const put = await call(me.cookie, 'PUT', '/api/dashboard/fx-rates', { rates: [{ day: '2026-09-01', currency: 'EUR', rate: 1.08 }, { day: '2026-09-02', currency: 'EUR', rate: 1.09 }] });
        expect(put.status).toBe(200);
        expect(await body(put)).toEqual({ ok: true, upserted: 2 });
        const listed = (await body(await call(me.cookie, 'GET', '/api/dashboard/fx-rates'))).data;
        expect(listed.map((rate: { day: string; rate: number; quote: string }) => [rate.day, rate.rate, rate.quote])).toEqual([['2026-09-02', 1.09, 'USD'], ['2026-09-01', 1.08, 'USD']]);
        expect((await body(await call(me.cookie, 'GET', '/api/dashboard/fx-rates?currency=GBP'))).data).toEqual([]);
        expect((await body(await call(them.cookie, 'GET', '/api/dashboard/fx-rates'))).data).toEqual([]);
        const audit = await db.query<{ user_id: string | null; api_key_id: string | null }>("SELECT user_id, api_key_id FROM audit_log WHERE entity = 'fx_rate' AND org_id = $1", [me.orgId]);
        expect(audit).toHaveLength(1);
        expect(audit[0]!.user_id).not.toBeNull();
        expect(audit[0]!.api_key_id).toBeNull();
      });

      test('a bad rate answers 400 naming it and writes nothing; a bad filter is a 400', async () => {
        const me = await registerAccount(t);
        const res = await call(me.cookie, 'PUT', '/api/dashboard/fx-rates', { rates: [{ day: '2026-09-01', currency: 'EUR', rate: 1.1 }, { day: '2026-02-30', currency: 'eur', rate: 0 }] });
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors).sort()).toEqual(['rates.1.currency', 'rates.1.rate']);
        expect((await body(await call(me.cookie, 'GET', '/api/dashboard/fx-rates'))).data).toEqual([]);
        expect((await call(me.cookie, 'GET', '/api/dashboard/fx-rates?from=2026-13-01')).status).toBe(400);
      });

      test('no session is 401; a foreign origin 403; neither writes', async () => {
        const me = await registerAccount(t);
        const rates = { rates: [{ day: '2026-09-01', currency: 'EUR', rate: 1.08 }] };
        expect((await t.request('/api/dashboard/fx-rates', { method: 'PUT', headers: { origin: ORIGIN }, json: rates })).status).toBe(401);
        expect((await t.request('/api/dashboard/fx-rates')).status).toBe(401);
        expect((await call(me.cookie, 'PUT', '/api/dashboard/fx-rates', rates, { origin: 'https://evil.example' })).status).toBe(403);
        expect((await db.query('SELECT 1 FROM fx_rates WHERE org_id = $1', [me.orgId])).length).toBe(0);
      });
    });
  });
}
