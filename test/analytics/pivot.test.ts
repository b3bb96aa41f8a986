import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { campaignDayPivot, campaignTotals, PIVOT_COLUMNS } from '../../src/analytics/pivot';
import { MAX_REPORT_DAYS, parseReportRange } from '../../src/analytics/report-range';
import { clicksSummary, conversionsSummary, installsSummary } from '../../src/analytics/summaries';
import { HttpError } from '../../src/http/errors';
import { testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertApp, insertCampaign, insertLink, orgWithKey } from '../support/fixtures';
import { insertConversion, insertCost, insertEvent, insertInstall } from './report-fixtures';

// Database boots and DuckDB files on a shared, loaded machine; no assertion depends on time.
setDefaultTimeout(60_000);

const fieldErrorsOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return (error.body.error as { fieldErrors: Record<string, string[]> }).fieldErrors;
    throw error;
  }
  throw new Error('no error');
};

describe('report ranges', () => {
  test('from and to are calendar days, to not before from, at most 366 days both included', () => {
    expect(parseReportRange({ from: '2026-03-01', to: '2026-03-02' })).toEqual({
      from: '2026-03-01',
      to: '2026-03-02',
      start: new Date('2026-03-01T00:00:00Z'),
      end: new Date('2026-03-03T00:00:00Z'),
    });
    expect(parseReportRange({ from: '2023-01-01', to: '2024-01-01' }).end).toEqual(new Date('2024-01-02T00:00:00Z'));
    expect(Object.keys(fieldErrorsOf(() => parseReportRange({ from: '2026-02-30', to: 'x' })))).toEqual(['from', 'to']);
    expect(fieldErrorsOf(() => parseReportRange({ from: '2026-03-02', to: '2026-03-01' }))).toEqual({ to: ['must be the same day as from or later'] });
    expect(fieldErrorsOf(() => parseReportRange({ from: '2023-01-01', to: '2024-01-02' }))).toEqual({ to: [`must be at most ${MAX_REPORT_DAYS} days from from, both included`] });
    expect(Object.keys(fieldErrorsOf(() => parseReportRange({ from: undefined, to: '2026-01-01' })))).toEqual(['from']);
  });
});

for (const backend of backends()) {
  describe(`campaign pivot and summaries on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { MIRROR_INTERVAL_MS: '0' }, { workers: false });
    const deps = { db, mirror: t.services.mirror };
    const me = await orgWithKey(db);
    const them = await orgWithKey(db);
    const { appId } = await insertApp(db, me.orgId);
    const { campaignId: search } = await insertCampaign(db, me.orgId);
    const { campaignId: social } = await insertCampaign(db, me.orgId);
    await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [search, 'Search']);
    await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [social, 'Social']);
    const { linkId, slug } = await insertLink(db, me.orgId, { campaignId: search });

    // 2026-03-01: three clicks on Search (one dropped as a bot), one on Social, one of no campaign.
    await insertClick(db, { orgId: me.orgId, campaignId: search, linkId, country: 'US', createdAt: '2026-03-01T08:00:00Z' });
    await insertClick(db, { orgId: me.orgId, campaignId: search, linkId, country: 'US', createdAt: '2026-03-01T23:30:00Z' });
    await insertClick(db, { orgId: me.orgId, campaignId: search, linkId, country: 'US', createdAt: '2026-03-01T09:00:00Z', dropReason: 'bot' });
    await insertClick(db, { orgId: me.orgId, campaignId: social, country: 'DE', createdAt: '2026-03-01T10:00:00Z' });
    await insertClick(db, { orgId: me.orgId, createdAt: '2026-03-01T11:00:00Z' });
    await insertClick(db, { orgId: me.orgId, campaignId: search, linkId, country: 'US', createdAt: '2026-03-02T00:00:00Z' });
    await insertClick(db, { orgId: me.orgId, campaignId: search, createdAt: '2026-02-28T23:59:59Z' });
    const paid = await insertInstall(db, { orgId: me.orgId, appId, campaignId: search, at: '2026-03-01T10:00:00Z' });
    await insertInstall(db, { orgId: me.orgId, appId, campaignId: search, at: '2026-03-01T12:00:00Z', reattribution: true });
    const organic = await insertInstall(db, { orgId: me.orgId, appId, at: '2026-03-01T13:00:00Z' });
    await insertConversion(db, { orgId: me.orgId, campaignId: search, event: 'purchase', value: 10.1, at: '2026-03-01T14:00:00Z' });
    await insertConversion(db, { orgId: me.orgId, campaignId: search, event: 'signup', value: null, at: '2026-03-01T15:00:00Z' });
    await insertConversion(db, { orgId: me.orgId, campaignId: social, event: 'purchase', value: 5, at: '2026-03-01T16:00:00Z' });
    await insertEvent(db, { orgId: me.orgId, appId, installId: paid, name: 'purchase', value: 2.5, at: '2026-03-01T17:00:00Z' });
    await insertEvent(db, { orgId: me.orgId, appId, installId: paid, name: 'ad_revenue', value: 0.4, at: '2026-03-01T18:00:00Z' });
    await insertEvent(db, { orgId: me.orgId, appId, installId: paid, name: 'session_start', value: null, at: '2026-03-01T18:00:00Z' });
    await insertEvent(db, { orgId: me.orgId, appId, installId: paid, name: 'level_complete', value: 99, at: '2026-03-01T18:00:00Z' });
    await insertEvent(db, { orgId: me.orgId, appId, installId: organic, name: 'purchase', value: 1, at: '2026-03-01T19:00:00Z' });
    await insertEvent(db, { orgId: me.orgId, appId, installId: null, name: 'purchase', value: 3, at: '2026-03-01T20:00:00Z' });
    await insertCost(db, { orgId: me.orgId, campaignId: search, day: '2026-03-01', spend: 20 });
    await insertCost(db, { orgId: me.orgId, campaignId: social, day: '2026-03-02', spend: 7 });
    await insertCost(db, { orgId: me.orgId, campaignId: social, day: '2026-03-04', spend: 1000 });
    // Another organization's activity on the same days.
    const { campaignId: theirs } = await insertCampaign(db, them.orgId);
    const { appId: theirApp } = await insertApp(db, them.orgId);
    await insertClick(db, { orgId: them.orgId, campaignId: theirs, createdAt: '2026-03-01T08:00:00Z' });
    await insertInstall(db, { orgId: them.orgId, appId: theirApp, campaignId: theirs, at: '2026-03-01T08:00:00Z' });
    await insertConversion(db, { orgId: them.orgId, campaignId: theirs, value: 500, at: '2026-03-01T08:00:00Z' });
    await insertCost(db, { orgId: them.orgId, campaignId: theirs, day: '2026-03-01', spend: 900 });

    const range = parseReportRange({ from: '2026-03-01', to: '2026-03-02' });
    const [first, second] = [search, social].sort() as [string, string];
    const byCampaignId = <T extends { campaign_id: string | null }>(rows: T[]) => rows.sort((a, b) => (a.campaign_id ?? '~').localeCompare(b.campaign_id ?? '~'));

    test('one row per day and campaign: counted clicks, installs, conversions, revenue of every source, spend, CPI and ROAS', async () => {
      const rows = await campaignDayPivot(deps, me.orgId, range);
      expect(rows.map((row) => Object.keys(row).sort())).toEqual(rows.map(() => [...PIVOT_COLUMNS].sort()));
      const day1 = rows.filter((row) => row.day === '2026-03-01');
      const day2 = rows.filter((row) => row.day === '2026-03-02');
      expect(rows.map((row) => row.day)).toEqual([...day1.map(() => '2026-03-01'), ...day2.map(() => '2026-03-02')]);
      expect(day1.at(-1)!.campaign_id).toBeNull();
      expect(byCampaignId(day1)).toEqual(byCampaignId([
        { day: '2026-03-01', campaign_id: search, campaign: 'Search', clicks: 2, installs: 2, conversions: 2, revenue: 13, spend: 20, cpi: 10, roas: 0.65 },
        { day: '2026-03-01', campaign_id: social, campaign: 'Social', clicks: 1, installs: 0, conversions: 1, revenue: 5, spend: 0, cpi: null, roas: null },
        { day: '2026-03-01', campaign_id: null, campaign: null, clicks: 1, installs: 1, conversions: 0, revenue: 4, spend: 0, cpi: 0, roas: null },
      ]));
      expect(day2.map((row) => row.campaign_id)).toEqual([first, second]);
      expect(byCampaignId(day2)).toEqual(byCampaignId([
        { day: '2026-03-02', campaign_id: search, campaign: 'Search', clicks: 1, installs: 0, conversions: 0, revenue: 0, spend: 0, cpi: null, roas: null },
        { day: '2026-03-02', campaign_id: social, campaign: 'Social', clicks: 0, installs: 0, conversions: 0, revenue: 0, spend: 7, cpi: null, roas: 0 },
      ]));
    });

    test('summed per campaign over the range, largest spend first, with the grand total', async () => {
      const { campaigns, total } = campaignTotals(await campaignDayPivot(deps, me.orgId, range));
      expect(campaigns).toEqual([
        { campaign_id: search, campaign: 'Search', clicks: 3, installs: 2, conversions: 2, revenue: 13, spend: 20, cpi: 10, roas: 0.65 },
        { campaign_id: social, campaign: 'Social', clicks: 1, installs: 0, conversions: 1, revenue: 5, spend: 7, cpi: null, roas: 0.7143 },
        { campaign_id: null, campaign: null, clicks: 1, installs: 1, conversions: 0, revenue: 4, spend: 0, cpi: 0, roas: null },
      ]);
      expect(total).toEqual({ clicks: 5, installs: 3, conversions: 3, revenue: 22, spend: 27, cpi: 9, roas: 0.8148 });
    });

    test('another organization sees only its own rows, and a range without activity is empty', async () => {
      const theirRows = await campaignDayPivot(deps, them.orgId, range);
      expect(theirRows).toEqual([{ day: '2026-03-01', campaign_id: theirs, campaign: 'Campaign', clicks: 1, installs: 1, conversions: 1, revenue: 500, spend: 900, cpi: 900, roas: 0.5556 }]);
      expect(await campaignDayPivot(deps, me.orgId, parseReportRange({ from: '2025-01-01', to: '2025-01-31' }))).toEqual([]);
    });

    test('clicks by day, campaign (named), country and link (by slug); dropped clicks counted apart', async () => {
      const byDay = await clicksSummary(deps, me.orgId, range, 'day');
      expect(byDay).toEqual({
        rows: [
          { key: '2026-03-01', label: '2026-03-01', clicks: 4, dropped: 1 },
          { key: '2026-03-02', label: '2026-03-02', clicks: 1, dropped: 0 },
        ],
        total: { clicks: 5, dropped: 1 },
      });
      const byCampaign = await clicksSummary(deps, me.orgId, range, 'campaign');
      expect(byCampaign.rows).toEqual([
        { key: search, label: 'Search', clicks: 3, dropped: 1 },
        { key: social, label: 'Social', clicks: 1, dropped: 0 },
        { key: null, label: null, clicks: 1, dropped: 0 },
      ]);
      expect((await clicksSummary(deps, me.orgId, range, 'country')).rows).toEqual([
        { key: 'US', label: 'US', clicks: 3, dropped: 1 },
        { key: 'DE', label: 'DE', clicks: 1, dropped: 0 },
        { key: null, label: null, clicks: 1, dropped: 0 },
      ]);
      expect((await clicksSummary(deps, me.orgId, range, 'link')).rows).toEqual([
        { key: linkId, label: slug, clicks: 3, dropped: 1 },
        { key: null, label: null, clicks: 2, dropped: 0 },
      ]);
      expect((await clicksSummary(deps, them.orgId, range, 'campaign')).rows).toEqual([{ key: theirs, label: 'Campaign', clicks: 1, dropped: 0 }]);
    });

    test('conversions by event with matched counts and values; installs by method with re-attributions', async () => {
      expect(await conversionsSummary(deps, me.orgId, range, 'event')).toEqual({
        rows: [
          { key: 'purchase', label: 'purchase', conversions: 2, matched: 2, value: 15.1 },
          { key: 'signup', label: 'signup', conversions: 1, matched: 1, value: 0 },
        ],
        total: { conversions: 3, matched: 3, value: 15.1 },
      });
      expect(await installsSummary(deps, me.orgId, range, 'method')).toEqual({
        rows: [
          { key: 'CLICK_ID', label: 'CLICK_ID', installs: 2, reattributions: 1 },
          { key: 'ORGANIC', label: 'ORGANIC', installs: 1, reattributions: 0 },
        ],
        total: { installs: 3, reattributions: 1 },
      });
      expect((await installsSummary(deps, me.orgId, range, 'campaign')).rows.map((row) => [row.label, row.installs])).toEqual([['Search', 2], [null, 1]]);
    });
  });
}
