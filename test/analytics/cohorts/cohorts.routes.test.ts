import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { CohortReportBody } from '../../../src/analytics/cohorts/cohorts.model';
import { issueApiKey } from '../../../src/auth/api-keys';
import { body, testApp } from '../../support/app';
import { backends } from '../../support/db';
import { insertApp } from '../../support/fixtures';
import { registerAccount } from '../../protect/support';
import { campaign, cost, event, install } from './support';

const QUERY = 'from=2026-02-02&to=2026-02-03&group_by=campaign,day&days=0,1,7';

for (const backend of backends()) {
  describe(`GET /api/v1/reports/cohorts and /api/dashboard/reports/cohorts on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { MIRROR_INTERVAL_MS: '0' }, { workers: false });
    const account = async () => {
      const { cookie, orgId } = await registerAccount(t);
      const key = await issueApiKey(db, { orgId, name: 'reports' });
      const { appId } = await insertApp(db, orgId);
      return { orgId, appId, cookie, auth: { authorization: `Bearer ${key.api_key}` } };
    };
    const me = await account();
    const them = await account();
    const summer = await campaign(db, me.orgId, { name: 'Summer', partner: 'meta', appId: me.appId });
    const theirCampaign = await campaign(db, them.orgId, { name: 'Theirs' });
    await cost(db, { orgId: me.orgId, campaignId: summer, day: '2026-02-02', spend: 12 });
    const installed = await install(db, { orgId: me.orgId, appId: me.appId, campaignId: summer, at: '2026-02-02T10:00:00Z' });
    await event(db, { orgId: me.orgId, appId: me.appId, installId: installed, name: 'purchase', value: 3, at: '2026-02-03T10:00:00Z' });
    await install(db, { orgId: me.orgId, appId: me.appId, at: '2026-02-03T10:00:00Z' });

    const api = (query: string, headers: Record<string, string> = me.auth) => t.request(`/api/v1/reports/cohorts?${query}`, { headers });
    const dashboard = (query: string, cookie = me.cookie) => t.request(`/api/dashboard/reports/cohorts?${query}`, { headers: { cookie } });

    test('the API key and the session answer the same report, in the documented shape', async () => {
      const byKey = await api(QUERY);
      expect(byKey.status).toBe(200);
      const report = await body(byKey);
      expect([...Value.Errors(CohortReportBody, report)].map((error) => `${error.path}: ${error.message}`)).toEqual([]);
      expect(report).toMatchObject({ from: '2026-02-02', to: '2026-02-03', timezone: 'UTC', currency: 'USD', group_by: ['campaign', 'day'], days: [0, 1, 7], unconverted: {} });
      expect(report.rows.map((row: any) => [row.day, row.campaign_id, row.campaign, row.installs, row.spend])).toEqual([
        ['2026-02-02', summer, 'Summer', 1, 12],
        ['2026-02-03', null, null, 1, 0],
      ]);
      expect(report.rows[0].days[1]).toEqual({ day: 1, installs: 1, retained: 1, retention: 1, revenue: 3, arpu: 3, roas: 0.25, uninstalled: 0 });
      expect(report.total).toMatchObject({ installs: 2, spend: 12, cpi: 6 });
      const bySession = await dashboard(QUERY);
      expect(bySession.status).toBe(200);
      expect(await body(bySession)).toEqual(report);
    });

    test('defaults: grouped by day, days 0,1,3,7,14,30, re-attributions excluded, any activity', async () => {
      const report = await body(await api('from=2026-02-02&to=2026-02-02'));
      expect(report).toMatchObject({ group_by: ['day'], days: [0, 1, 3, 7, 14, 30], reattributions: 'exclude', activity: 'any' });
      expect(report.rows.map((row: any) => Object.keys(row))).toEqual([['day', 'installs', 'reattributions', 'spend', 'cpi', 'days']]);
    });

    const bad: [string, string, string][] = [
      ['a range over 366 days', 'from=2025-01-01&to=2026-01-02', 'to'],
      ['to before from', 'from=2026-02-03&to=2026-02-02', 'to'],
      ['from not a day', 'from=2026-02-30&to=2026-03-01', 'from'],
      ['from missing', 'to=2026-03-01', 'from'],
      ['an unknown grouping', 'from=2026-02-02&to=2026-02-02&group_by=city', 'group_by'],
      ['three groupings', 'from=2026-02-02&to=2026-02-02&group_by=day,campaign,country', 'group_by'],
      ['one grouping twice', 'from=2026-02-02&to=2026-02-02&group_by=day,day', 'group_by'],
      ['a day past 180', 'from=2026-02-02&to=2026-02-02&days=0,181', 'days'],
      ['a negative day', 'from=2026-02-02&to=2026-02-02&days=-1', 'days'],
      ['a day that is not a number', 'from=2026-02-02&to=2026-02-02&days=1,x', 'days'],
      ['a day twice', 'from=2026-02-02&to=2026-02-02&days=1,1', 'days'],
      ['no day', 'from=2026-02-02&to=2026-02-02&days=', 'days'],
      ['a country that is no code', 'from=2026-02-02&to=2026-02-02&country=1x', 'country'],
      ['a country too long', 'from=2026-02-02&to=2026-02-02&country=USA', 'country'],
      ['an unknown platform', 'from=2026-02-02&to=2026-02-02&platform=amiga', 'platform'],
      ['an unknown campaign', 'from=2026-02-02&to=2026-02-02&campaign_id=01JUNKNOWN', 'campaign_id'],
      ["another organization's campaign", `from=2026-02-02&to=2026-02-02&campaign_id=${theirCampaign}`, 'campaign_id'],
      ["another organization's app", `from=2026-02-02&to=2026-02-02&app_id=${them.appId}`, 'app_id'],
      ['an empty partner', 'from=2026-02-02&to=2026-02-02&partner=', 'partner'],
      ['reattributions neither include nor exclude', 'from=2026-02-02&to=2026-02-02&reattributions=maybe', 'reattributions'],
      ['an unknown activity', 'from=2026-02-02&to=2026-02-02&activity=clicks', 'activity'],
    ];
    for (const [what, query, field] of bad) {
      test(`400 naming ${field}: ${what}, on both routes`, async () => {
        for (const res of [await api(query), await dashboard(query)]) {
          expect(res.status).toBe(400);
          const answer = await body(res);
          expect(Object.keys(answer.error.fieldErrors)).toContain(field);
        }
      });
    }

    test('no credential, a wrong one, or the other route\'s: 401', async () => {
      expect((await t.request(`/api/v1/reports/cohorts?${QUERY}`)).status).toBe(401);
      expect((await api(QUERY, { authorization: 'Bearer svc_live_not-a-key' })).status).toBe(401);
      expect((await t.request(`/api/v1/reports/cohorts?${QUERY}`, { headers: { cookie: me.cookie } })).status).toBe(401);
      expect((await t.request(`/api/dashboard/reports/cohorts?${QUERY}`)).status).toBe(401);
      expect((await t.request(`/api/dashboard/reports/cohorts?${QUERY}`, { headers: me.auth })).status).toBe(401);
      expect((await dashboard(QUERY, 'svc_session=forged.token.value')).status).toBe(401);
    });

    test("another organization's key or session sees nothing of this organization", async () => {
      for (const res of [await api(QUERY, them.auth), await dashboard(QUERY, them.cookie)]) {
        expect(res.status).toBe(200);
        const report = await body(res);
        expect(report.rows).toEqual([]);
        expect(report.total).toMatchObject({ installs: 0, spend: 0 });
        // No cohort of theirs has reached any day: nothing to count, so null rather than 0.
        expect(report.total.days.map((entry: any) => entry.revenue)).toEqual([null, null, null]);
      }
      const filtered = await api(`${QUERY}&campaign_id=${summer}`, them.auth);
      expect(filtered.status).toBe(400);
      expect((await body(filtered)).error.fieldErrors.campaign_id).toEqual(['unknown campaign']);
    });
  });
}
