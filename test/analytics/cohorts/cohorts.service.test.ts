import { describe, expect, test } from 'bun:test';
import { cohortSql, type CohortFact } from '../../../src/analytics/cohorts/cohort-sql';
import { parseCohortQuery, type CohortQueryText } from '../../../src/analytics/cohorts/cohorts.model';
import { cohortReport } from '../../../src/analytics/cohorts/cohorts.service';
import { zoneWindow } from '../../../src/analytics/reporting/zone-days';
import { backends } from '../../support/db';
import { testMirror } from '../mirror/mirror.helpers';
import { at, campaign, cost, event, install, rate, reportingOrg } from './support';

/** Each definition of docs/reports.md, "Cohorts", on rows that tell it apart from its alternatives. */
const facts = (rows: CohortFact[]) =>
  rows.map((row) => ({ ...row, install_day: Number(row.install_day), n: row.n === null ? null : Number(row.n), v1: row.v1 === null ? null : Number(row.v1), v2: row.v2 === null ? null : Number(row.v2) })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

for (const backend of backends()) {
  describe(`cohortReport on ${backend.name}`, async () => {
    const db = await backend.create();
    const mirror = await testMirror({ db });
    // Los Angeles: 2026-06-02T05:00Z is 22:00 on June 1, local; UTC days would put it on June 2.
    const { orgId, appId } = await reportingOrg(db, { timezone: 'America/Los_Angeles', currency: 'USD' });
    const other = await reportingOrg(db);
    const brand = await campaign(db, orgId, { name: 'Brand', partner: 'google_ads', appId });
    const video = await campaign(db, orgId, { name: 'Video', partner: 'tiktok', appId });
    await cost(db, { orgId, campaignId: brand, day: '2026-06-01', spend: 40 });
    await cost(db, { orgId, campaignId: video, day: '2026-06-01', spend: 10, currency: 'EUR' });
    await cost(db, { orgId, campaignId: video, day: '2026-06-02', spend: 20 });

    const late = await install(db, { orgId, appId, campaignId: brand, at: '2026-06-02T05:00:00Z', country: 'US', platform: 'ios' });
    await event(db, { orgId, appId, installId: late, name: 'level_up', at: '2026-06-02T08:00:00Z' });
    await event(db, { orgId, appId, installId: late, name: 'purchase', value: 4, at: '2026-06-02T08:00:00Z' });
    const quiet = await install(db, { orgId, appId, campaignId: brand, at: '2026-06-01T18:00:00Z', country: 'DE', platform: 'android', uninstalledAt: '2026-06-02T18:00:00Z' });
    await event(db, { orgId, appId, installId: quiet, name: 'uninstall', at: '2026-06-02T18:00:00Z' });
    await event(db, { orgId, appId, installId: quiet, name: 'subscription_renewed', value: 6, at: '2026-06-02T18:00:00Z' });
    await event(db, { orgId, appId, installId: quiet, name: 'subscription_refunded', value: -2, at: '2026-06-03T18:00:00Z' });
    const sessions = await install(db, { orgId, appId, campaignId: video, at: '2026-06-01T17:00:00Z', country: 'US', platform: 'ios' });
    await event(db, { orgId, appId, installId: sessions, name: 'session_start', at: '2026-06-02T17:00:00Z' });
    const organic = await install(db, { orgId, appId, at: '2026-06-01T17:00:00Z', country: 'FR', platform: 'android', method: 'ORGANIC' });
    await event(db, { orgId, appId, installId: organic, name: 'ad_revenue', value: 0.5, at: '2026-06-01T17:30:00Z' });
    const again = await install(db, { orgId, appId, campaignId: brand, at: '2026-06-01T16:00:00Z', reattribution: true });
    await event(db, { orgId, appId, installId: again, name: 'session_start', at: '2026-06-02T16:00:00Z' });
    // Another organization's install on the same day, with everything the report counts.
    const theirs = await install(db, { orgId: other.orgId, appId: other.appId, at: '2026-06-01T19:00:00Z' });
    await event(db, { orgId: other.orgId, appId: other.appId, installId: theirs, name: 'purchase', value: 1000, at: '2026-06-01T19:00:00Z' });

    const deps = { db, mirror, clock: at('2026-07-15T12:00:00Z') };
    const report = (query: Partial<CohortQueryText>) => cohortReport(deps, orgId, { from: '2026-06-01', to: '2026-06-01', days: '0,1,2', ...query });
    const dayOf = (row: { days: { day: number }[] }, n: number) => row.days.find((entry) => entry.day === n) as any;

    test('the same statement answers the same on Postgres as on the mirror', async () => {
      const query = parseCohortQuery({ from: '2026-06-01', to: '2026-06-02', group_by: 'partner,day', days: '0,1,2,30' });
      const { sql, params } = cohortSql(query, { orgId, currency: 'USD', window: zoneWindow('America/Los_Angeles', query.from, query.to, 30) });
      await mirror.catchUp();
      const onMirror = facts(await mirror.query<CohortFact>(sql, params));
      expect(onMirror.length).toBeGreaterThan(10);
      expect(facts(await db.query<CohortFact>(sql, params))).toEqual(onMirror);
    });

    test("day N is the Nth local day after the install's local day", async () => {
      const { rows } = await report({ group_by: 'campaign' });
      const brandRow = rows.find((row) => row.campaign_id === brand)!;
      expect(brandRow).toMatchObject({ campaign: 'Brand', installs: 2, reattributions: 1 });
      // late: installed June 1 local, active 01:00 June 2 local: day 1, not day 0.
      expect(dayOf(brandRow, 0).retained).toBe(0);
      expect(dayOf(brandRow, 1).retained).toBe(1);
    });

    test('any SDK event is activity by default, session_start alone with activity=sessions; uninstall and store events never', async () => {
      const any = (await report({ group_by: 'campaign' })).total;
      // day 1: late (level_up, purchase) and sessions (session_start); quiet's uninstall and renewal are not activity.
      expect(dayOf(any, 1)).toMatchObject({ installs: 4, retained: 2, retention: 0.5 });
      // day 0: the organic install's ad revenue is an SDK event.
      expect(dayOf(any, 0).retained).toBe(1);
      const sessionsOnly = (await report({ group_by: 'campaign', activity: 'sessions' })).total;
      expect(dayOf(sessionsOnly, 1)).toMatchObject({ retained: 1 });
      expect(dayOf(sessionsOnly, 0)).toMatchObject({ retained: 0 });
    });

    test('revenue is cumulative through day N: purchases, ad revenue, store payments less refunds', async () => {
      const { total } = await report({ group_by: 'campaign' });
      expect(total.days.map((entry) => entry.revenue)).toEqual([0.5, 10.5, 8.5]);
      expect(dayOf(total, 2).arpu).toBe(2.125);
    });

    test('re-attributed installs are left out and counted apart by default, counted in with include', async () => {
      const excluded = await report({ group_by: 'campaign' });
      expect(excluded.total).toMatchObject({ installs: 4, reattributions: 1 });
      const included = await report({ group_by: 'campaign', reattributions: 'include' });
      expect(included.total).toMatchObject({ installs: 5, reattributions: 1 });
      expect(dayOf(included.total, 1)).toMatchObject({ installs: 5, retained: 3 });
    });

    test('uninstalled_d counts the installs marked uninstalled on or before day N', async () => {
      const { total } = await report({ group_by: 'campaign' });
      expect(total.days.map((entry) => entry.uninstalled)).toEqual([0, 1, 1]);
    });

    test('spend by campaign and partner, converted; installs without a campaign are partner organic', async () => {
      await rate(db, { orgId, day: '2026-05-01', currency: 'EUR', rate: 1.5 });
      const byPartner = await report({ group_by: 'partner' });
      expect(byPartner.rows.map((row) => [row.partner, row.installs, row.spend, row.cpi])).toEqual([
        ['google_ads', 2, 40, 20],
        ['organic', 1, 0, 0],
        ['tiktok', 1, 15, 15],
      ]);
      expect(byPartner.total).toMatchObject({ installs: 4, spend: 55 });
      expect(dayOf(byPartner.total, 2).roas).toBe(Math.round((8.5 / 55) * 1e4) / 1e4);
      expect(byPartner.unconverted_spend).toEqual({});
      const organicOnly = await report({ group_by: 'partner', partner: 'organic' });
      expect(organicOnly.rows.map((row) => [row.partner, row.installs, row.spend])).toEqual([['organic', 1, 0]]);
    });

    test('spend by country or platform is null in the rows; a country or platform filter leaves the total without spend', async () => {
      const byCountry = await report({ group_by: 'country,platform' });
      expect(byCountry.rows.every((row) => row.spend === null && row.cpi === null && row.days.every((entry) => entry.roas === null))).toBe(true);
      expect(byCountry.rows.map((row) => [row.country, row.platform, row.installs])).toEqual([
        ['US', 'ios', 2],
        ['DE', 'android', 1],
        ['FR', 'android', 1],
        // The re-attributed install: no installs counted, one reported apart.
        [null, 'android', 0],
      ]);
      expect(byCountry.rows[3]!.reattributions).toBe(1);
      expect(byCountry.total.spend).not.toBeNull();
      const filtered = await report({ group_by: 'campaign', country: 'us' });
      expect(filtered.total).toMatchObject({ installs: 2, spend: null, cpi: null });
    });

    test('a cost in a currency without a rate is reported apart', async () => {
      await cost(db, { orgId, campaignId: brand, day: '2026-06-03', spend: 7, currency: 'JPY' });
      const later = await cohortReport(deps, orgId, { from: '2026-06-03', to: '2026-06-03', group_by: 'campaign' });
      expect(later.unconverted_spend).toEqual({ JPY: 7 });
      expect(later.total.spend).toBe(0);
    });

    test('a cohort day not reached yet is null in every field; the total counts a day only over the cohorts that reached it', async () => {
      // "Today" is June 3 in Los Angeles: June 1 has reached day 2, June 2 only day 1.
      const early = await cohortReport({ ...deps, clock: at('2026-06-03T12:00:00Z') }, orgId, { from: '2026-06-01', to: '2026-06-02', group_by: 'day', days: '0,1,2,3' });
      const [june1, june2] = early.rows;
      expect([june1!.day, june2!.day]).toEqual(['2026-06-01', '2026-06-02']);
      expect(dayOf(june1!, 3)).toEqual({ day: 3, installs: null, retained: null, retention: null, revenue: null, arpu: null, roas: null, uninstalled: null });
      expect(dayOf(june2!, 2).retained).toBeNull();
      expect(dayOf(early.total, 2)).toMatchObject({ installs: june1!.installs, revenue: dayOf(june1!, 2).revenue });
      expect(dayOf(early.total, 1).installs).toBe(june1!.installs + june2!.installs);
      expect(dayOf(early.total, 3).installs).toBeNull();
    });

    test('group by app and method: the app by name; another organization counts nowhere', async () => {
      const { rows, total } = await report({ group_by: 'app,method' });
      expect(rows.map((row) => [row.app_id, row.app, row.method, row.installs])).toEqual([[appId, 'Puzzle', 'CLICK_ID', 3], [appId, 'Puzzle', 'ORGANIC', 1]]);
      expect(dayOf(total, 0).revenue).toBe(0.5);
      const theirsReport = await cohortReport(deps, other.orgId, { from: '2026-06-01', to: '2026-06-01' });
      expect(theirsReport.rows.map((row) => [row.day, row.installs])).toEqual([['2026-06-01', 1]]);
      expect(dayOf(theirsReport.total, 0).revenue).toBe(1000);
      const foreignApp = cohortReport(deps, other.orgId, { from: '2026-06-01', to: '2026-06-01', app_id: appId, campaign_id: brand });
      expect(foreignApp).rejects.toMatchObject({ status: 400, body: { error: { fieldErrors: { app_id: ['unknown app'], campaign_id: ['unknown campaign'] } } } });
    });
  });
}
