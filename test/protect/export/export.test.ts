import { describe, expect, test } from 'bun:test';
import { invalidClicksCsv } from '../../../src/protect/export/export.service';
import { body, testApp } from '../../support/app';
import { insertClick } from '../../support/clicks';
import { csvRowsOf } from '../../support/csv';
import { backends } from '../../support/db';
import { insertCampaign } from '../../support/fixtures';
import { expectSecurityHeaders } from '../../support/http';
import { registerAccount } from '../support';

const HEADER = 'ip,reasons,score,gclid,campaign,clicks,first_seen,last_seen';
const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms);

for (const backend of backends()) {
  describe(`GET /api/protect/export on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db);
    const exportCsv = (cookie: string, query = '') => t.request(`/api/protect/export${query}`, { headers: { cookie } });

    test('one row per invalid IP and campaign, reasons joined with |, only this organization', async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      const { campaignId } = await insertCampaign(db, me.orgId);
      await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [campaignId, 'Summer, "Big" sale\nEU']);
      const first = ago(5 * HOUR);
      const last = ago(HOUR);
      await insertClick(db, { orgId: me.orgId, campaignId, ip: '5.9.1.1', createdAt: first, gclid: 'old', riskReasons: ['datacenter_ip', 'no_dwell'] });
      await insertClick(db, { orgId: me.orgId, campaignId, ip: '5.9.1.1', createdAt: last, gclid: 'new', riskReasons: ['rapid_repeat', 'datacenter_ip'] });
      await insertClick(db, { orgId: me.orgId, campaignId, ip: '5.9.1.1', createdAt: ago(2 * HOUR), riskReasons: ['datacenter_ip'] });
      const automated = ago(2 * HOUR);
      await insertClick(db, { orgId: me.orgId, ip: '5.9.1.1', createdAt: automated, riskReasons: ['webdriver'] });
      await insertClick(db, { orgId: me.orgId, ip: '73.162.1.1', createdAt: ago(HOUR), riskReasons: ['no_scroll'] });
      await insertClick(db, { orgId: me.orgId, ip: '66.249.66.1', createdAt: ago(HOUR), isBot: true, dropReason: 'verified_bot', riskScore: 90, riskReasons: ['webdriver'] });
      await insertClick(db, { orgId: me.orgId, ip: '5.9.1.2', createdAt: ago(40 * 24 * HOUR), riskReasons: ['webdriver'] });
      await insertClick(db, { orgId: them.orgId, ip: '5.9.1.9', createdAt: ago(HOUR), riskReasons: ['webdriver'] });

      const res = await exportCsv(me.cookie);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="invalid-clicks-\d{4}-\d{2}-\d{2}-30d\.csv"$/);
      expectSecurityHeaders(res);
      const text = await res.clone().text();
      expect(text.split('\r\n')[0]).toBe(HEADER);
      const rows = await csvRowsOf(res);
      expect(rows).toEqual([
        { ip: '5.9.1.1', reasons: 'webdriver', score: '60', gclid: '', campaign: '', clicks: '1', first_seen: automated.toISOString(), last_seen: automated.toISOString() },
        {
          ip: '5.9.1.1', reasons: 'datacenter_ip|rapid_repeat|no_dwell', score: '90', gclid: 'new', campaign: 'Summer, "Big" sale\nEU', clicks: '2',
          first_seen: first.toISOString(), last_seen: last.toISOString(),
        },
      ]);
    });

    test('line breaks and formulas in gclids and campaign names stay inside their row, neutralised', async () => {
      const me = await registerAccount(t);
      const named = async (name: string) => {
        const { campaignId } = await insertCampaign(db, me.orgId);
        await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [campaignId, name]);
        return campaignId;
      };
      const formula = '=HYPERLINK("http://evil.test","x")';
      await insertClick(db, { orgId: me.orgId, campaignId: await named('a\rb'), ip: '5.9.3.1', createdAt: ago(HOUR), gclid: 'line1\nline2', riskReasons: ['webdriver'] });
      await insertClick(db, { orgId: me.orgId, campaignId: await named('+cmd|calc'), ip: '5.9.3.2', createdAt: ago(HOUR), gclid: formula, riskReasons: ['webdriver'] });
      await insertClick(db, { orgId: me.orgId, ip: '5.9.3.3', createdAt: ago(HOUR), gclid: 'x\r\ny', riskReasons: ['webdriver'] });
      const rows = await csvRowsOf(await exportCsv(me.cookie));
      expect(rows.map((row) => [row.ip, row.gclid, row.campaign])).toEqual([
        ['5.9.3.1', 'line1\nline2', 'a\rb'],
        ['5.9.3.2', `'${formula}`, "'+cmd|calc"],
        ['5.9.3.3', 'x\r\ny', ''],
      ]);
    });

    test('days: default 30, 1 to 365; anything else 400 naming days and nothing else', async () => {
      const me = await registerAccount(t);
      await insertClick(db, { orgId: me.orgId, ip: '5.9.1.3', createdAt: ago(3 * 24 * HOUR), riskReasons: ['webdriver'] });
      expect(await csvRowsOf(await exportCsv(me.cookie, '?days=2'))).toEqual([]);
      expect((await csvRowsOf(await exportCsv(me.cookie, '?days=4'))).map((row) => row.ip)).toEqual(['5.9.1.3']);
      expect((await exportCsv(me.cookie, '?days=365')).status).toBe(200);
      for (const days of ['0', '366', '-1', 'x', '1.5', '']) {
        const res = await exportCsv(me.cookie, `?days=${days}`);
        expect(res.status).toBe(400);
        expect(await body(res)).toEqual({ error: { formErrors: [], fieldErrors: { days: [expect.any(String)] } } });
      }
    });

    test('the organization threshold decides what is invalid', async () => {
      const me = await registerAccount(t);
      await insertClick(db, { orgId: me.orgId, ip: '5.9.1.4', createdAt: ago(HOUR), riskReasons: ['datacenter_ip'] });
      expect(await csvRowsOf(await exportCsv(me.cookie))).toEqual([]);
      const put = await t.request('/api/dashboard/protect/settings', { method: 'PUT', headers: { cookie: me.cookie, origin: 'http://api.test.local' }, json: { invalid_threshold: 40 } });
      expect(put.status).toBe(200);
      expect(await body(put)).toEqual({ invalid_threshold: 40 });
      expect((await csvRowsOf(await exportCsv(me.cookie))).map((row) => [row.ip, row.score])).toEqual([['5.9.1.4', '40']]);
    });

    test('pages follow each other by key: every group once, in IP then campaign order', async () => {
      const me = await registerAccount(t);
      const campaigns = [(await insertCampaign(db, me.orgId)).campaignId, (await insertCampaign(db, me.orgId)).campaignId].sort();
      for (const id of campaigns) await db.query('UPDATE campaigns SET name = id WHERE id = $1', [id]);
      const ips = ['5.9.2.1', '5.9.2.2', '5.9.2.3'];
      for (const ip of ips) for (const campaignId of campaigns) await insertClick(db, { orgId: me.orgId, campaignId, ip, createdAt: ago(HOUR), riskReasons: ['webdriver'] });
      const stream = await invalidClicksCsv(t.services, me.orgId, 30, 2);
      const rows = await csvRowsOf(new Response(stream));
      expect(rows.map((row) => row.ip)).toEqual(['5.9.2.1', '5.9.2.1', '5.9.2.2', '5.9.2.2', '5.9.2.3', '5.9.2.3']);
      expect(rows.map((row) => row.campaign)).toEqual([...campaigns, ...campaigns, ...campaigns]);
    });

    test('a session is required', async () => {
      expect((await t.request('/api/protect/export')).status).toBe(401);
    });
  });

  describe(`protect settings on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const settings = (cookie: string, json?: unknown) =>
      t.request('/api/dashboard/protect/settings', json === undefined ? { headers: { cookie } } : { method: 'PUT', headers: { cookie }, json });

    test('default 50; PUT replaces it for this organization only and is audited', async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      expect(await body(await settings(me.cookie))).toEqual({ invalid_threshold: 50 });
      expect((await settings(me.cookie, { invalid_threshold: 70 })).status).toBe(200);
      expect(await body(await settings(me.cookie))).toEqual({ invalid_threshold: 70 });
      expect(await body(await settings(them.cookie))).toEqual({ invalid_threshold: 50 });
      const audit = await db.query<{ action: string; entity: string }>('SELECT action, entity FROM audit_log WHERE org_id = $1 AND entity = $2', [me.orgId, 'protect_settings']);
      expect(audit).toEqual([{ action: 'update', entity: 'protect_settings' }]);
    });

    test('a threshold outside 1 to 100, or another field: 400, unchanged', async () => {
      const me = await registerAccount(t);
      for (const bad of [{ invalid_threshold: 0 }, { invalid_threshold: 101 }, { invalid_threshold: 50.5 }, { invalid_threshold: '60' }, {}, { invalid_threshold: 60, x: 1 }]) {
        const res = await settings(me.cookie, bad);
        expect([JSON.stringify(bad), res.status]).toEqual([JSON.stringify(bad), 400]);
        expect((await body(res)).error.fieldErrors).toBeDefined();
      }
      expect(await body(await settings(me.cookie))).toEqual({ invalid_threshold: 50 });
    });

    test('without a session: 401; from a foreign origin: 403', async () => {
      const me = await registerAccount(t);
      expect((await t.request('/api/dashboard/protect/settings')).status).toBe(401);
      const foreign = await t.request('/api/dashboard/protect/settings', { method: 'PUT', headers: { cookie: me.cookie, origin: 'https://evil.example' }, json: { invalid_threshold: 10 } });
      expect(foreign.status).toBe(403);
      expect(await body(await settings(me.cookie))).toEqual({ invalid_threshold: 50 });
    });
  });
}
