import { describe, expect, test } from 'bun:test';
import { CLICK_EXPORT_COLUMNS, CONVERSION_EXPORT_COLUMNS, PIVOT_EXPORT_COLUMNS } from '../../src/dashboard/export/export.model';
import { dashboardExport } from '../../src/dashboard/export/export.service';
import { body, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { csvRowsOf } from '../support/csv';
import { backends } from '../support/db';
import { insertConversion, insertCost } from '../support/facts';
import { insertCampaign, insertLink } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { registerAccount } from '../protect/support';

const DAY_MS = 86_400_000;
const FORMULA = '=HYPERLINK("http://evil.test","x")';
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

for (const backend of backends()) {
  describe(`GET /api/dashboard/export on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { workers: false });
    const exportCsv = (cookie: string, query: string) => t.request(`/api/dashboard/export${query}`, { headers: { cookie } });

    test('clicks: the read model as columns, oldest first, only the window and only this organization', async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      const first = await insertClick(db, {
        orgId: me.orgId, createdAt: '2026-08-10T00:00:00.000Z', gclid: 'Cj0', keyword: '=HYPERLINK("x")', matchType: 'e', network: 'g', device: 'm',
        latencyMs: 3, transparentParamPresent: true, riskReasons: ['rapid_repeat', 'datacenter_ip'], dropReason: 'bot',
      });
      const second = await insertClick(db, { orgId: me.orgId, createdAt: '2026-08-11T23:59:59.999Z', nextHopUrl: 'https://shop.example.com/a,"b"' });
      await insertClick(db, { orgId: me.orgId, createdAt: '2026-08-12T00:00:00.000Z' });
      await insertClick(db, { orgId: me.orgId, createdAt: '2026-08-09T23:59:59.999Z' });
      await insertClick(db, { orgId: them.orgId, createdAt: '2026-08-10T12:00:00.000Z' });

      const res = await exportCsv(me.cookie, '?type=clicks&from=2026-08-10&to=2026-08-11');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="clicks-2026-08-10-2026-08-11.csv"');
      expectSecurityHeaders(res);
      const text = await res.clone().text();
      expect(text.split('\r\n')[0]).toBe(CLICK_EXPORT_COLUMNS.join(','));
      const rows = await csvRowsOf(res);
      expect(rows.map((row) => row.id)).toEqual([first, second]);
      expect(rows[0]).toEqual({
        id: first, createdAt: '2026-08-10T00:00:00.000Z', gclid: 'Cj0', gbraid: '', wbraid: '', campaignExtId: '', adGroupExtId: '', creativeId: '',
        keyword: `'=HYPERLINK("x")`, matchType: 'e', network: 'g', device: 'm', nextHopUrl: 'https://shop.example.com/landing',
        transparentParamPresent: 'true', forceTransparent: 'false', isBot: 'false', latencyMs: '3', dropReason: 'bot',
        riskScore: expect.stringMatching(/^[1-9][0-9]*$/), riskReasons: 'datacenter_ip|rapid_repeat', route: '',
        country: '', region: '', os: '', device_type: '', link: '', campaignId: '',
      });
      expect(rows[1]!.nextHopUrl).toBe('https://shop.example.com/a,"b"');
    });

    test("clicks: country, region, os, device_type, the link's slug and the campaign after the read model's columns", async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      const { campaignId } = await insertCampaign(db, me.orgId);
      const { linkId, slug } = await insertLink(db, me.orgId, { campaignId });
      // Another organization's link id on my click never lends me its slug.
      const { linkId: foreignLink } = await insertLink(db, them.orgId);
      const id = await insertClick(db, {
        orgId: me.orgId, linkId, campaignId, createdAt: '2026-08-10T08:00:00Z', country: 'DE', region: 'Bavaria', osFamily: 'Android', deviceType: 'mobile',
      });
      const foreign = await insertClick(db, { orgId: me.orgId, linkId: foreignLink, createdAt: '2026-08-10T09:00:00Z' });
      const res = await exportCsv(me.cookie, '?type=clicks&from=2026-08-10&to=2026-08-10');
      expect((await res.clone().text()).split('\r\n')[0]!.endsWith(',route,country,region,os,device_type,link,campaignId')).toBe(true);
      const rows = await csvRowsOf(res);
      expect(rows.map((row) => [row.id, row.country, row.region, row.os, row.device_type, row.link, row.campaignId])).toEqual([
        [id, 'DE', 'Bavaria', 'Android', 'mobile', slug, campaignId],
        [foreign, '', '', '', '', '', ''],
      ]);
    });

    test('conversions: one row per conversion with the read model fields', async () => {
      const me = await registerAccount(t);
      const { campaignId } = await insertCampaign(db, me.orgId);
      const id = await insertConversion(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-10T08:00:00Z', value: 12.5, currency: 'EUR', orderId: 'o-1', event: 'purchase' });
      const res = await exportCsv(me.cookie, '?type=conversions&from=2026-08-10&to=2026-08-10');
      expect(res.status).toBe(200);
      expect((await res.clone().text()).split('\r\n')[0]).toBe(CONVERSION_EXPORT_COLUMNS.join(','));
      expect(await csvRowsOf(res)).toEqual([
        { id, createdAt: '2026-08-10T08:00:00.000Z', clickId: '', campaignId, eventName: 'purchase', value: '12.5', currency: 'EUR', orderId: 'o-1', gclid: '', source: 'api' },
      ]);
    });

    test('pivot: day and campaign rows, cpi and roas empty when undefined', async () => {
      const me = await registerAccount(t);
      const { campaignId } = await insertCampaign(db, me.orgId);
      await insertClick(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-10T08:00:00Z' });
      await insertCost(db, { orgId: me.orgId, campaignId, day: '2026-08-10', spend: 40 });
      await insertConversion(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-10T09:00:00Z', value: 10 });
      const res = await exportCsv(me.cookie, '?type=pivot&from=2026-08-10&to=2026-08-10');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="pivot-2026-08-10-2026-08-10.csv"');
      expect((await res.clone().text()).split('\r\n')[0]).toBe(PIVOT_EXPORT_COLUMNS.join(','));
      expect(await csvRowsOf(res)).toEqual([
        { day: '2026-08-10', campaign_id: campaignId, campaign: 'Campaign', clicks: '1', installs: '0', conversions: '1', revenue: '10', spend: '40', cpi: '', roas: '0.25' },
      ]);
    });

    test('pivot: in the reporting zone and currency; amounts without a rate get two last columns of their own', async () => {
      const me = await registerAccount(t);
      await db.query("UPDATE organizations SET timezone = 'Europe/Berlin', currency = 'EUR' WHERE id = $1", [me.orgId]);
      const { campaignId } = await insertCampaign(db, me.orgId);
      await db.query("INSERT INTO fx_rates (id, org_id, day, currency, rate, quote) VALUES ('r1', $1, DATE '2026-08-01', 'USD', 0.5, 'EUR')", [me.orgId]);
      await insertClick(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-09T23:30:00Z' });
      await insertCost(db, { orgId: me.orgId, campaignId, day: '2026-08-10', spend: 40 });
      await insertConversion(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-10T09:00:00Z', value: 10, currency: 'EUR' });
      await insertConversion(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-10T10:00:00Z', value: 2.5, currency: 'GBP' });
      const res = await exportCsv(me.cookie, '?type=pivot&from=2026-08-10&to=2026-08-10');
      expect((await res.clone().text()).split('\r\n')[0]).toBe([...PIVOT_EXPORT_COLUMNS, 'unconverted', 'unconverted_spend'].join(','));
      expect(await csvRowsOf(res)).toEqual([
        { day: '2026-08-10', campaign_id: campaignId, campaign: 'Campaign', clicks: '1', installs: '0', conversions: '2', revenue: '10', spend: '20', cpi: '', roas: '', unconverted: '2.5 GBP', unconverted_spend: '' },
      ]);
    });

    test('clicks: line breaks and formulas in text fields stay inside their row', async () => {
      const me = await registerAccount(t);
      const broken = await insertClick(db, {
        orgId: me.orgId, createdAt: '2026-08-10T01:00:00Z', keyword: 'line1\nline2', creativeId: 'a\rb', adGroupExtId: 'x\r\ny', gclid: FORMULA,
      });
      const plain = await insertClick(db, { orgId: me.orgId, createdAt: '2026-08-10T02:00:00Z', keyword: 'shoes' });
      const rows = await csvRowsOf(await exportCsv(me.cookie, '?type=clicks&from=2026-08-10&to=2026-08-10'));
      expect(rows.map((row) => row.id)).toEqual([broken, plain]);
      expect(rows[0]).toMatchObject({ keyword: 'line1\nline2', creativeId: 'a\rb', adGroupExtId: 'x\r\ny', gclid: `'${FORMULA}` });
      expect(rows[1]).toMatchObject({ keyword: 'shoes', nextHopUrl: 'https://shop.example.com/landing' });
    });

    test('conversions: line breaks and formulas in text fields stay inside their row', async () => {
      const me = await registerAccount(t);
      const broken = await insertConversion(db, { orgId: me.orgId, createdAt: '2026-08-10T01:00:00Z', orderId: 'line1\nline2', event: 'a\rb', currency: FORMULA });
      const formula = await insertConversion(db, { orgId: me.orgId, createdAt: '2026-08-10T02:00:00Z', orderId: '@SUM(A1)', event: '-1+1' });
      const rows = await csvRowsOf(await exportCsv(me.cookie, '?type=conversions&from=2026-08-10&to=2026-08-10'));
      expect(rows.map((row) => [row.id, row.orderId, row.eventName, row.currency])).toEqual([
        [broken, 'line1\nline2', 'a\rb', `'${FORMULA}`],
        [formula, `'@SUM(A1)`, `'-1+1`, ''],
      ]);
    });

    test('pivot: line breaks and formulas in campaign names stay inside their row', async () => {
      const me = await registerAccount(t);
      const names = ['line1\nline2', 'a\rb', FORMULA];
      const campaigns: string[] = [];
      for (const name of names) {
        const { campaignId } = await insertCampaign(db, me.orgId);
        await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [campaignId, name]);
        await insertClick(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-10T08:00:00Z' });
        campaigns.push(campaignId);
      }
      const rows = await csvRowsOf(await exportCsv(me.cookie, '?type=pivot&from=2026-08-10&to=2026-08-10'));
      const nameOf = new Map(rows.map((row) => [row.campaign_id, row.campaign]));
      expect(rows.map((row) => row.clicks)).toEqual(['1', '1', '1']);
      expect(campaigns.map((id) => nameOf.get(id))).toEqual(['line1\nline2', 'a\rb', `'${FORMULA}`]);
    });

    test('pages follow each other by time and id, microseconds included, every row once', async () => {
      const me = await registerAccount(t);
      const times = ['2026-08-10T10:00:00.000001Z', '2026-08-10T10:00:00.000002Z', '2026-08-10T10:00:00.000002Z', '2026-08-10T10:00:00.000003Z', '2026-08-10T11:00:00Z'];
      const ids: string[] = [];
      for (const time of times) ids.push(await insertClick(db, { orgId: me.orgId, createdAt: new Date(Date.parse(time)) }));
      // insertClick keeps milliseconds: the microseconds are set here, as Postgres stores them.
      for (const [i, time] of times.entries()) await db.query('UPDATE clicks SET created_at = $2::timestamptz WHERE id = $1', [ids[i], time]);
      const csv = await dashboardExport(t.services, me.orgId, { type: 'clicks', from: '2026-08-10', to: '2026-08-10' }, 2);
      const rows = await csvRowsOf(new Response(csv.body));
      const sameTime = [ids[1]!, ids[2]!].sort();
      expect(rows.map((row) => row.id)).toEqual([ids[0]!, ...sameTime, ids[3]!, ids[4]!]);
    });

    test('from and to default to the last 30 days, today included', async () => {
      const me = await registerAccount(t);
      const now = Date.now();
      const inside = await insertClick(db, { orgId: me.orgId, createdAt: new Date(Date.parse(`${dayOf(now - 29 * DAY_MS)}T00:00:00Z`)) });
      const today = await insertClick(db, { orgId: me.orgId, createdAt: new Date(now - 1000) });
      await insertClick(db, { orgId: me.orgId, createdAt: new Date(Date.parse(`${dayOf(now - 29 * DAY_MS)}T00:00:00Z`) - 1) });
      const res = await exportCsv(me.cookie, '?type=clicks');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="clicks-${dayOf(now - 29 * DAY_MS)}-${dayOf(now)}.csv"`);
      expect((await csvRowsOf(res)).map((row) => row.id)).toEqual([inside, today]);
    });

    test('breakdown: the grouped keys with their labels, then the measures, filtered as asked, only this organization', async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      const { campaignId } = await insertCampaign(db, me.orgId);
      await db.query("UPDATE campaigns SET name = $2, partner = 'meta' WHERE id = $1", [campaignId, FORMULA]);
      await insertClick(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-10T08:00:00Z' });
      await insertClick(db, { orgId: me.orgId, createdAt: '2026-08-10T09:00:00Z' });
      await insertCost(db, { orgId: me.orgId, campaignId, day: '2026-08-10', spend: 40 });
      const theirs = await insertCampaign(db, them.orgId);
      await insertClick(db, { orgId: them.orgId, campaignId: theirs.campaignId, createdAt: '2026-08-10T08:00:00Z' });
      const res = await exportCsv(me.cookie, '?type=breakdown&from=2026-08-10&to=2026-08-10&group_by=campaign');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="breakdown-2026-08-10-2026-08-10.csv"');
      expect((await res.clone().text()).split('\r\n')[0]).toBe('campaign_id,campaign,clicks,invalid_clicks,installs,conversions,revenue,spend,cpi,roas,cvr,unconverted,unconverted_spend');
      const rows = await csvRowsOf(res);
      expect(rows.map((row) => [row.campaign_id, row.campaign, row.clicks, row.spend, row.roas])).toEqual([
        [campaignId, `'${FORMULA}`, '1', '40', '0'],
        ['', '', '1', '0', ''],
      ]);
      const filtered = await csvRowsOf(await exportCsv(me.cookie, '?type=breakdown&from=2026-08-10&to=2026-08-10&group_by=partner&partner=meta'));
      expect(filtered.map((row) => [row.partner, row.clicks])).toEqual([['meta', '1']]);
      for (const [query, field] of [['&group_by=planet', 'group_by'], ['&country=1x', 'country'], ['&platform=palm', 'platform']] as const) {
        const bad = await exportCsv(me.cookie, `?type=breakdown&from=2026-08-10&to=2026-08-10${query}`);
        expect(bad.status).toBe(400);
        expect(Object.keys((await body(bad)).error.fieldErrors)).toEqual([field]);
      }
    });

    test('bad type, dates or window: 400 naming the field, and no file', async () => {
      const me = await registerAccount(t);
      const cases: [string, string][] = [
        ['', 'type'],
        ['?type=installs', 'type'],
        ['?type=clicks&from=2026-02-30', 'from'],
        ['?type=clicks&to=20260801', 'to'],
        ['?type=clicks&from=2026-08-10&to=2026-08-09', 'to'],
        ['?type=pivot&from=2025-01-01&to=2026-01-03', 'to'],
      ];
      for (const [query, field] of cases) {
        const res = await exportCsv(me.cookie, query);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toStartWith('application/json');
        const error = (await body(res)).error;
        expect(Object.keys(error.fieldErrors)).toEqual([field]);
        expect(error.formErrors).toEqual([]);
      }
      expect((await exportCsv(me.cookie, '?type=pivot&from=2025-01-01&to=2026-01-02')).status).toBe(200);
    });

    test('no session, a foreign cookie or a signed-out one: 401', async () => {
      const me = await registerAccount(t);
      expect((await t.request('/api/dashboard/export?type=clicks')).status).toBe(401);
      expect((await exportCsv('svc_session=forged.token.value', '?type=clicks')).status).toBe(401);
      await t.request('/logout', { method: 'POST', headers: { cookie: me.cookie } });
      const res = await exportCsv(me.cookie, '?type=clicks');
      expect(res.status).toBe(401);
      expect(await body(res)).toEqual({ error: 'unauthorized' });
    });

    test('POST is not allowed', async () => {
      const me = await registerAccount(t);
      const res = await t.request('/api/dashboard/export?type=clicks', { method: 'POST', headers: { cookie: me.cookie, origin: 'http://api.test.local' } });
      expect(res.status).toBe(405);
    });
  });
}
