import { describe, expect, test } from 'bun:test';
import { breakdownSql } from '../../../src/analytics/breakdown/breakdown-sql';
import { breakdownRows } from '../../../src/analytics/breakdown/breakdown.service';
import { zoneWindow } from '../../../src/analytics/reporting/zone-days';
import type { Db } from '../../../src/db/db';
import { newId } from '../../../src/shared/ids';
import { body, testApp } from '../../support/app';
import { insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { insertConversion, insertCost, insertEvent, insertInstall } from '../../support/facts';
import { insertApp, insertCampaign, insertLink, orgWithKey } from '../../support/fixtures';
import { expectSecurityHeaders } from '../../support/http';
import { mcpClient } from '../../mcp/support';
import { registerAccount } from '../../protect/support';

const D0 = '2026-08-09';
const D1 = '2026-08-10';
const D2 = '2026-08-11';
const at = (day: string, time = '12:00:00Z') => `${day}T${time}`;
const PATH = '/api/v1/reports/breakdown';

/** Settings, partners, install countries and rates are written straight into storage (their endpoints are another module's). */
async function seed(db: Db, orgId: string) {
  const { appId } = await insertApp(db, orgId);
  const { campaignId: c1 } = await insertCampaign(db, orgId, { appId });
  const { campaignId: c2 } = await insertCampaign(db, orgId);
  await db.query("UPDATE campaigns SET name = 'Summer', partner = 'meta' WHERE id = $1", [c1]);
  await db.query("UPDATE campaigns SET name = 'Brand', partner = 'google_ads' WHERE id = $1", [c2]);
  const { linkId, slug } = await insertLink(db, orgId, { campaignId: c1 });

  const android = { country: 'DE', osFamily: 'Android', deviceType: 'mobile', network: 'g' };
  await insertClick(db, { orgId, campaignId: c1, linkId, createdAt: at(D1, '10:00:00Z'), ...android, region: 'Bavaria' });
  await insertClick(db, { orgId, campaignId: c1, linkId, createdAt: at(D1, '11:00:00Z'), ...android });
  // Scored invalid but not dropped: a valid click that is also invalid.
  await insertClick(db, { orgId, campaignId: c1, linkId, createdAt: at(D2), country: 'US', osFamily: 'iOS', deviceType: 'tablet', network: 's', riskReasons: ['webdriver'] });
  // Dropped as a bot and scored invalid: not a click, an invalid one.
  await insertClick(db, { orgId, campaignId: c1, linkId, createdAt: at(D1), ...android, dropReason: 'bot', riskReasons: ['unverified_bot'] });
  // No user agent: the device comes from the ValueTrack parameter (m).
  await insertClick(db, { orgId, campaignId: c2, createdAt: at(D2), country: 'US', device: 'm', network: 'x' });
  await insertClick(db, { orgId, campaignId: c1, linkId, createdAt: at(D0), ...android });

  const i1 = await insertInstall(db, { orgId, appId, campaignId: c1, installedAt: at(D1) });
  const i2 = await insertInstall(db, { orgId, appId, campaignId: c2, installedAt: at(D2) });
  const i3 = await insertInstall(db, { orgId, appId, installedAt: at(D2) });
  await db.query("UPDATE installs SET country = 'DE' WHERE id = $1 OR id = $2", [i1.installId, i3.installId]);
  await db.query("UPDATE installs SET country = 'US', platform = 'ios' WHERE id = $1", [i2.installId]);

  await insertConversion(db, { orgId, campaignId: c1, createdAt: at(D1), value: 10 });
  await insertConversion(db, { orgId, createdAt: at(D2), value: 5, currency: 'EUR' });
  await insertEvent(db, { orgId, appId, deviceIdHash: i1.deviceIdHash, installId: i1.installId, name: 'purchase', value: 20, occurredAt: at(D2) });
  await insertEvent(db, { orgId, appId, deviceIdHash: i3.deviceIdHash, installId: i3.installId, name: 'ad_revenue', value: 1, occurredAt: at(D2) });
  await insertEvent(db, { orgId, appId, deviceIdHash: i3.deviceIdHash, installId: i3.installId, name: 'session_start', value: 99, occurredAt: at(D2) });
  await insertCost(db, { orgId, campaignId: c1, day: D1, spend: 30 });
  await insertCost(db, { orgId, campaignId: c2, day: D2, spend: 12 });
  await insertCost(db, { orgId, campaignId: c2, day: D0, spend: 1000 });
  return { appId, c1, c2, linkId, slug };
}

type Metrics = { clicks: number; invalid_clicks: number; installs: number; conversions: number; revenue: number; spend: number; cpi: number | null; roas: number | null; cvr: number | null; unconverted: Record<string, number>; unconverted_spend: Record<string, number> };
const m = (fields: Partial<Metrics>): Metrics => {
  const all = { clicks: 0, invalid_clicks: 0, installs: 0, conversions: 0, revenue: 0, spend: 0, unconverted: {}, unconverted_spend: {}, ...fields };
  const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1e6) / 1e6 : null);
  // A ratio over an amount partly unconverted is null (docs/reports.md, "Exchange rates").
  const revenueWhole = Object.keys(all.unconverted).length === 0;
  const spendWhole = Object.keys(all.unconverted_spend).length === 0;
  return {
    ...all,
    cpi: spendWhole ? ratio(all.spend, all.installs) : null,
    roas: revenueWhole && spendWhole ? ratio(all.revenue, all.spend) : null,
    cvr: ratio(all.installs, all.clicks),
  };
};

for (const backend of backends()) {
  describe(`breakdown report on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { workers: false });
    const me = await orgWithKey(db, 'Mine');
    const them = await orgWithKey(db, 'Theirs');
    const mine = await seed(db, me.orgId);
    await seed(db, them.orgId);
    const get = async (query: string, auth: Record<string, string> = me.auth) => t.request(`${PATH}?${query}`, { headers: auth });
    const report = async (query: string, auth: Record<string, string> = me.auth) => {
      const res = await get(query, auth);
      expect(res.status).toBe(200);
      return body(res);
    };
    const range = `from=${D1}&to=${D2}`;

    test('by country: valid and invalid clicks, installs, converted revenue, spend, ratios; the total from the sums', async () => {
      const res = await get(`${range}&group_by=country`);
      expect(res.status).toBe(200);
      expectSecurityHeaders(res);
      const answer = await body(res);
      const total = m({ clicks: 4, invalid_clicks: 2, installs: 3, conversions: 2, revenue: 31, spend: 42, unconverted: { EUR: 5 } });
      expect(answer).toEqual({
        from: D1, to: D2, timezone: 'UTC', currency: 'USD', group_by: ['country'],
        rows: [
          { country: 'DE', ...m({ clicks: 2, invalid_clicks: 1, installs: 2, revenue: 21 }) },
          { country: 'US', ...m({ clicks: 2, invalid_clicks: 1, installs: 1 }) },
          { country: null, ...m({ conversions: 2, revenue: 10, spend: 42, unconverted: { EUR: 5 } }) },
        ],
        total,
        unconverted: { EUR: 5 },
        unconverted_spend: {},
      });
      // 5 EUR unconverted: no ROAS over the 31 converted (docs/reports.md, "Exchange rates").
      expect(total).toMatchObject({ cpi: 14, roas: null, cvr: 0.75 });
    });

    test('by partner: organic installs apart from what has no campaign', async () => {
      const { rows } = await report(`${range}&group_by=partner`);
      expect(rows).toEqual([
        { partner: 'meta', ...m({ clicks: 3, invalid_clicks: 2, installs: 1, conversions: 1, revenue: 30, spend: 30 }) },
        { partner: 'google_ads', ...m({ clicks: 1, installs: 1, spend: 12 }) },
        { partner: 'organic', ...m({ installs: 1, revenue: 1 }) },
        { partner: null, ...m({ conversions: 1, unconverted: { EUR: 5 } }) },
      ]);
    });

    test('by day and campaign: days in order, the campaign named', async () => {
      const { rows } = await report(`${range}&group_by=day,campaign`);
      expect(rows).toEqual([
        { day: D1, campaign_id: mine.c1, campaign: 'Summer', ...m({ clicks: 2, invalid_clicks: 1, installs: 1, conversions: 1, revenue: 10, spend: 30 }) },
        { day: D2, campaign_id: mine.c2, campaign: 'Brand', ...m({ clicks: 1, installs: 1, spend: 12 }) },
        { day: D2, campaign_id: mine.c1, campaign: 'Summer', ...m({ clicks: 1, invalid_clicks: 1, revenue: 20 }) },
        { day: D2, campaign_id: null, campaign: null, ...m({ installs: 1, conversions: 1, revenue: 1, unconverted: { EUR: 5 } }) },
      ]);
    });

    test('by link (its slug), by os, by platform, by region, by device and network', async () => {
      const key = (rows: any[], fields: string[]) => rows.map((row) => [...fields.map((field) => row[field]), row.clicks, row.invalid_clicks, row.installs, row.revenue, row.spend]);
      expect(key((await report(`${range}&group_by=link`)).rows, ['link_id', 'link'])).toEqual([
        [mine.linkId, mine.slug, 3, 2, 0, 0, 0],
        [null, null, 1, 0, 3, 31, 42],
      ]);
      const byOs = [['Android', 2, 1, 2, 21, 0], ['iOS', 1, 1, 1, 0, 0], [null, 1, 0, 0, 10, 42]];
      expect(key((await report(`${range}&group_by=os`)).rows, ['os'])).toEqual(byOs);
      expect(key((await report(`${range}&group_by=platform`)).rows, ['platform'])).toEqual([['android', ...byOs[0]!.slice(1)], ['ios', ...byOs[1]!.slice(1)], [null, ...byOs[2]!.slice(1)]]);
      expect(key((await report(`${range}&group_by=region`)).rows, ['region'])).toEqual([[null, 3, 2, 3, 31, 42], ['Bavaria', 1, 0, 0, 0, 0]]);
      expect(key((await report(`${range}&group_by=device,network`)).rows, ['device', 'network'])).toEqual([
        ['mobile', 'g', 2, 1, 0, 0, 0],
        ['mobile', 'x', 1, 0, 0, 0, 0],
        ['tablet', 's', 1, 1, 0, 0, 0],
        [null, null, 0, 0, 3, 31, 42],
      ]);
    });

    test('filters: campaign, partner (organic too), app, country, platform; a source without the dimension is left out', async () => {
      const total = async (filter: string) => (await report(`${range}&group_by=day&${filter}`)).total;
      expect(await total(`campaign_id=${mine.c2}`)).toEqual(m({ clicks: 1, installs: 1, spend: 12 }));
      expect(await total('partner=meta')).toEqual(m({ clicks: 3, invalid_clicks: 2, installs: 1, conversions: 1, revenue: 30, spend: 30 }));
      expect(await total('partner=organic')).toEqual(m({ installs: 1, revenue: 1 }));
      expect(await total(`app_id=${mine.appId}`)).toEqual(m({ clicks: 3, invalid_clicks: 2, installs: 3, conversions: 1, revenue: 31, spend: 30 }));
      expect(await total('country=de')).toEqual(m({ clicks: 2, invalid_clicks: 1, installs: 2, revenue: 21 }));
      expect(await total('platform=ios')).toEqual(m({ clicks: 1, invalid_clicks: 1, installs: 1 }));
    });

    test('days of the reporting zone, amounts in the reporting currency, unconverted ones apart', async () => {
      const zoned = await orgWithKey(db, 'Zoned');
      await db.query("UPDATE organizations SET timezone = 'America/New_York', currency = 'EUR' WHERE id = $1", [zoned.orgId]);
      await db.query("INSERT INTO fx_rates (id, org_id, day, currency, rate) VALUES ($1, $2, $3::date, 'USD', 0.5)", [newId(), zoned.orgId, D1]);
      const { campaignId } = await insertCampaign(db, zoned.orgId);
      // 02:00 UTC on D1 is 22:00 on D0 in New York.
      await insertClick(db, { orgId: zoned.orgId, campaignId, createdAt: at(D1, '02:00:00Z') });
      await insertConversion(db, { orgId: zoned.orgId, campaignId, createdAt: at(D1), value: 10, currency: 'USD' });
      await insertConversion(db, { orgId: zoned.orgId, campaignId, createdAt: at(D1), value: 3, currency: 'GBP' });
      await insertConversion(db, { orgId: zoned.orgId, campaignId, createdAt: at(D1), value: 2 });
      // The rate holds from D1 on: spend of D0 in USD has none.
      await insertCost(db, { orgId: zoned.orgId, campaignId, day: D1, spend: 8 });
      await insertCost(db, { orgId: zoned.orgId, campaignId, day: D0, spend: 6 });
      const answer = await report(`from=${D0}&to=${D1}&group_by=day`, zoned.auth);
      expect(answer).toMatchObject({ timezone: 'America/New_York', currency: 'EUR', unconverted: { GBP: 3 }, unconverted_spend: { USD: 6 } });
      expect(answer.rows).toEqual([
        { day: D0, ...m({ clicks: 1, unconverted_spend: { USD: 6 } }) },
        { day: D1, ...m({ conversions: 3, revenue: 7, spend: 4, unconverted: { GBP: 3 } }) },
      ]);
      // 7 EUR of revenue over 4 EUR of spend, but 3 GBP unconverted beside it: no ROAS, not 1.75.
      expect(answer.rows[1]).toMatchObject({ revenue: 7, spend: 4, roas: null });
    });

    test('the same SQL answers the same on the database itself', async () => {
      for (const groupBy of [['country', 'os'], ['day', 'partner'], ['link', 'device']] as const) {
        const { sql, params } = breakdownSql({
          orgId: me.orgId, groupBy, filters: {}, window: zoneWindow('UTC', D1, D2), currency: 'USD', invalidThreshold: 50,
        });
        const direct = breakdownRows(await db.query<Record<string, unknown>>(sql, params), groupBy);
        const served = await report(`${range}&group_by=${groupBy.join(',')}`);
        const withoutLabels = served.rows.map(({ campaign, link, ...row }: Record<string, unknown>) => row);
        expect(direct.rows).toEqual(withoutLabels);
        expect(direct.total).toEqual(served.total);
      }
    });

    test('the dashboard route answers the same behind a session', async () => {
      const account = await registerAccount(t);
      await seed(db, account.orgId);
      const viaSession = await t.request(`/api/dashboard/reports/breakdown?${range}&group_by=partner`, { headers: { cookie: account.cookie } });
      expect(viaSession.status).toBe(200);
      const rows = (await body(viaSession)).rows;
      expect(rows.map((row: { partner: string | null; clicks: number }) => [row.partner, row.clicks])).toEqual([['meta', 3], ['google_ads', 1], ['organic', 0], [null, 0]]);
    });

    test('the MCP tool breakdown_report gives the same numbers as the API', async () => {
      const client = await mcpClient(t, me.apiKey);
      const calls: Record<string, string>[] = [{ from: D1, to: D2, group_by: 'country,os' }, { from: D1, to: D2, group_by: 'campaign', partner: 'meta' }, { from: D1, to: D2 }];
      for (const args of calls) {
        const query = new URLSearchParams(args).toString();
        const result = await client.callTool({ name: 'breakdown_report', arguments: args });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual(await report(query));
      }
      const text = await client.callTool({ name: 'breakdown_report', arguments: { from: D1, to: D2, group_by: 'campaign' } });
      expect((text.content as { text: string }[])[0]!.text).toContain(`| Summer (${mine.c1}) | 3 | 2 | 1 | 1 | 30 | 30 | 30 | 1 | 0.3333 |`);
      const refused = await client.callTool({ name: 'breakdown_report', arguments: { from: D1, to: D2, group_by: 'week' } });
      expect(refused.isError).toBe(true);
      expect(Object.keys(JSON.parse((refused.content as { text: string }[])[0]!.text).error.fieldErrors)).toEqual(['group_by']);
      await client.close();
    });

    test('bad input: 400 naming the field', async () => {
      const cases: [string, string][] = [
        [`to=${D2}`, 'from'],
        [`from=${D1}`, 'to'],
        [`from=2026-02-30&to=${D2}`, 'from'],
        [`from=${D1}&to=20260811`, 'to'],
        [`from=${D2}&to=${D1}`, 'to'],
        ['from=2025-01-01&to=2026-01-02', 'to'],
        [`${range}&group_by=week`, 'group_by'],
        [`${range}&group_by=day,country,os`, 'group_by'],
        [`${range}&group_by=os,os`, 'group_by'],
        [`${range}&group_by=`, 'group_by'],
        [`${range}&country=DEU`, 'country'],
        [`${range}&platform=symbian`, 'platform'],
        [`${range}&campaign_id=`, 'campaign_id'],
        [`${range}&partner=${'p'.repeat(65)}`, 'partner'],
      ];
      for (const [query, field] of cases) {
        const res = await get(query);
        expect(res.status).toBe(400);
        const error = (await body(res)).error;
        expect(Object.keys(error.fieldErrors)).toEqual([field]);
      }
      expect((await get('from=2025-01-01&to=2026-01-01')).status).toBe(200);
    });

    test("no key, a bad key, another organization's key or session: nothing of this organization", async () => {
      expect((await t.request(`${PATH}?${range}`)).status).toBe(401);
      expect((await get(range, { authorization: 'Bearer svc_live_not_a_key' })).status).toBe(401);
      expect((await t.request(`/api/dashboard/reports/breakdown?${range}`)).status).toBe(401);
      expect((await t.request(`/api/dashboard/reports/breakdown?${range}`, { headers: { cookie: 'svc_session=forged.token.value' } })).status).toBe(401);
      const stranger = await orgWithKey(db, 'Stranger');
      expect(await report(`${range}&group_by=campaign&campaign_id=${mine.c1}`, stranger.auth)).toMatchObject({ rows: [], total: m({}), unconverted: {} });
      const account = await registerAccount(t);
      const viaSession = await body(await t.request(`/api/dashboard/reports/breakdown?${range}&group_by=link`, { headers: { cookie: account.cookie } }));
      expect(viaSession.rows).toEqual([]);
      // Their own report never counts mine: the same seed, the same numbers.
      expect((await report(`${range}&group_by=country`, them.auth)).total).toEqual((await report(`${range}&group_by=country`)).total);
    });
  });
}
