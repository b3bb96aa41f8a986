import { describe, expect, test } from 'bun:test';
import type { CohortReport } from '../../src/analytics/cohorts/cohorts.model';
import { cohortPanel, heatClass } from '../../src/dashboard/web/pages/cohort-view';
import { lineChart } from '../../src/dashboard/web/svg-chart';
import { testApp } from '../support/app';
import { backends } from '../support/db';
import { insertCost } from '../support/facts';
import { insertApp, insertCampaign } from '../support/fixtures';
import { registerAccount } from '../protect/support';
import { event, install } from '../analytics/cohorts/support';

describe('the cohort heat map and the charts', () => {
  test('retention bands: none, then under 10, 20, 40, 60 percent, and 60 or more', () => {
    expect([0, 0.05, 0.1, 0.19, 0.2, 0.39, 0.4, 0.59, 0.6, 1].map(heatClass)).toEqual(['heat-0', 'heat-1', 'heat-2', 'heat-2', 'heat-3', 'heat-3', 'heat-4', 'heat-4', 'heat-5', 'heat-5']);
  });

  test('a cohort day not reached yet is a dash with words for screen readers, never a shade; no spend means no ROAS curve', () => {
    const day = (n: number, installs: number | null, retained: number | null) => ({
      day: n, installs, retained, retention: installs && retained !== null ? retained / installs : null, revenue: null, arpu: null, roas: null, uninstalled: null,
    });
    const days = [day(0, 4, 4), day(1, 4, 1), day(7, null, null)];
    const report: CohortReport = {
      from: '2026-08-10', to: '2026-08-10', timezone: 'UTC', currency: 'USD', group_by: ['day'], days: [0, 1, 7], reattributions: 'exclude', activity: 'any',
      rows: [{ day: '2026-08-10', installs: 4, reattributions: 0, spend: null, cpi: null, days }],
      total: { installs: 4, reattributions: 0, spend: null, cpi: null, days },
      unconverted: {}, unconverted_spend: {},
    };
    const panel = cohortPanel(report, '/csv').text;
    expect(panel).toContain('<td class="num heat-5">100.0%<span class="cell-detail">4/4</span></td><td class="num heat-3">25.0%<span class="cell-detail">1/4</span></td><td class="num heat-none"><span aria-hidden="true">—</span><span class="visually-hidden">not reached</span></td>');
    expect(panel).toContain('No spend imported for these cohorts, so no ROAS.');
  });

  test('a line chart escapes its labels and leaves a gap where a value is null', () => {
    const svg = lineChart({ title: 'T <b>', xLabels: ['day 0', 'day 1', 'day 3'], series: [{ label: '<script>x</script>', values: [1, null, 0.5] }], format: String }).text;
    expect(svg).toContain('aria-label="T &lt;b&gt;"');
    expect(svg).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(svg).not.toContain('<script>');
    // Two strokes: the null starts a new one instead of bridging it.
    expect(/ d="([^"]*)"/.exec(svg)![1]!.match(/M/g)!.length).toBe(2);
  });
});

for (const backend of backends()) {
  describe(`the campaigns and settings pages on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { workers: false });
    const get = (path: string, cookie: string) => t.request(path, { headers: { cookie } });

    async function seeded() {
      const me = await registerAccount(t);
      const { appId } = await insertApp(db, me.orgId);
      await db.query("UPDATE apps SET name = 'Puzzle' WHERE id = $1", [appId]);
      const { campaignId } = await insertCampaign(db, me.orgId, { externalId: `ext-${campaignId_()}` });
      await db.query("UPDATE campaigns SET name = '<script>alert(1)</script>', partner = 'meta', app_id = $2 WHERE id = $1", [campaignId, appId]);
      // Two installs on 10 August, one of them active the next day: day 1 retention is 1 of 2.
      const first = await install(db, { orgId: me.orgId, appId, campaignId, at: '2026-08-10T09:00:00Z', country: 'DE' });
      await install(db, { orgId: me.orgId, appId, campaignId, at: '2026-08-10T11:00:00Z', country: 'DE' });
      await event(db, { orgId: me.orgId, appId, installId: first, name: 'session_start', at: '2026-08-11T10:00:00Z' });
      await insertCost(db, { orgId: me.orgId, campaignId, day: '2026-08-10', spend: 10 });
      return { me, appId, campaignId };
    }
    let counter = 0;
    const campaignId_ = () => `${Date.now()}-${counter++}`;

    test('a campaign named <script> is shown as text in the list, its page, the breakdown and the cohorts', async () => {
      const { me, campaignId } = await seeded();
      const page = await (await get(`/campaigns?from=2026-08-10&to=2026-08-10&cohort_by=campaign`, me.cookie)).text();
      expect(page).not.toContain('<script>alert(1)</script>');
      expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page).toContain(`href="/campaigns/${campaignId}"`);
      const one = await get(`/campaigns/${campaignId}`, me.cookie);
      expect(one.status).toBe(200);
      const text = await one.text();
      expect(text).toContain('<h1>Campaign &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
      expect(text).not.toContain('<script>alert(1)');
      expect(text).toContain(`data-api="/api/dashboard/campaigns/${campaignId}" data-method="PATCH"`);
      expect(text).toContain('value="meta"');
    });

    test('the list has each campaign with its totals; the cohort heat map holds the numbers in its cells; the CSV links carry the filters', async () => {
      const { me } = await seeded();
      const whole = await (await get('/campaigns?from=2026-08-10&to=2026-08-10', me.cookie)).text();
      const list = whole.slice(whole.indexOf('id="campaigns-title"'), whole.indexOf('New campaign'));
      // Clicks 0, installs 2, revenue 0, spend 10, ROAS 0 in the campaign's row.
      expect(list).toContain('<td class="num">0</td><td class="num">2</td><td class="num">0.00</td><td class="num">10.00</td><td class="num">0.00</td>');
      const page = await (await get('/campaigns?from=2026-08-10&to=2026-08-10&country=de&platform=android', me.cookie)).text();
      const heat = page.slice(page.indexOf('class="heatmap"'));
      // Day 0 has no activity past the install itself; day 1 has one of the two.
      expect(heat).toContain('<th scope="row">2026-08-10</th><td class="num">2</td><td class="num heat-0">0.0%<span class="cell-detail">0/2</span></td><td class="num heat-4">50.0%<span class="cell-detail">1/2</span></td>');
      expect(page).toContain('href="/api/dashboard/export?type=cohorts&amp;from=2026-08-10&amp;to=2026-08-10&amp;country=DE&amp;platform=android&amp;group_by=day"');
      expect(page).toContain('href="/api/dashboard/export?type=breakdown&amp;from=2026-08-10&amp;to=2026-08-10&amp;country=DE&amp;platform=android&amp;group_by=campaign"');
      expect(page).toContain('<svg viewBox="0 0 640 240" role="img" aria-label="Retention by cohort day, per cohort"');
      // The cohort CSV the page links to has the same numbers.
      const csv = await (await get('/api/dashboard/export?type=cohorts&from=2026-08-10&to=2026-08-10&country=DE&platform=android&group_by=day', me.cookie)).text();
      const [header, row] = csv.trim().split('\r\n').map((line) => line.split(','));
      expect(row![header!.indexOf('d1_retained')]).toBe('1');
      expect(row![header!.indexOf('d1_installs')]).toBe('2');
    });

    test('bad filters are shown beside their fields and no report is drawn; a bad window falls back to the default', async () => {
      const me = await registerAccount(t);
      const res = await get('/campaigns?country=Germany&platform=palm&campaign_id=nope&group_by=planet', me.cookie);
      expect(res.status).toBe(200);
      const page = await res.text();
      expect(page).toContain('<p class="error" id="report-country-error" data-error-for="country">must be a two-letter country code (ISO 3166-1 alpha-2)</p>');
      expect(page).toMatch(/id="report-platform-error" data-error-for="platform">must be one of /);
      expect(page).toContain('id="report-campaign_id-error" data-error-for="campaign_id">unknown campaign</p>');
      expect(page).toContain('id="report-country" name="country" aria-describedby="report-country-hint report-country-error" aria-invalid="true"');
      expect(page).not.toContain('class="heatmap"');
      const breakdownOnly = await (await get('/campaigns?group_by=planet', me.cookie)).text();
      expect(breakdownOnly).toMatch(/data-error-for="group_by">must be one or two of/);
      expect(await (await get('/campaigns?from=2026-13-01', me.cookie)).text()).toContain('showing the default');
    });

    test("another organization's campaign is neither listed nor shown; its page is a 404", async () => {
      const { campaignId } = await seeded();
      const me = await registerAccount(t);
      const page = await (await get('/campaigns', me.cookie)).text();
      expect(page).not.toContain(campaignId);
      expect(page).not.toContain('&lt;script&gt;');
      const foreign = await get(`/campaigns/${campaignId}`, me.cookie);
      expect(foreign.status).toBe(404);
      expect(await foreign.text()).toContain('campaign not found');
      const filtered = await (await get(`/campaigns?campaign_id=${campaignId}`, me.cookie)).text();
      expect(filtered).toContain('data-error-for="campaign_id">unknown campaign</p>');
    });

    test('archived campaigns are listed apart', async () => {
      const me = await registerAccount(t);
      const { campaignId } = await insertCampaign(db, me.orgId);
      await db.query("UPDATE campaigns SET name = 'Old', status = 'archived' WHERE id = $1", [campaignId]);
      const page = await (await get('/campaigns', me.cookie)).text();
      expect(page).toContain('No active campaigns yet.');
      expect(page).toContain('Archived campaigns (1)');
      expect(await (await get(`/campaigns/${campaignId}`, me.cookie)).text()).toContain('Restore campaign');
    });

    test('the settings page has the zone and currency, the upload form and the stored rates', async () => {
      const me = await registerAccount(t);
      await db.query("UPDATE organizations SET timezone = 'Europe/Berlin', currency = 'EUR' WHERE id = $1", [me.orgId]);
      await db.query("INSERT INTO fx_rates (id, org_id, day, currency, rate, quote) VALUES ('r1', $1, '2026-09-01', 'USD', 0.92, 'EUR')", [me.orgId]);
      const other = await registerAccount(t);
      await db.query("INSERT INTO fx_rates (id, org_id, day, currency, rate, quote) VALUES ('r2', $1, '2026-09-02', 'GBP', 1.17, 'USD')", [other.orgId]);
      const page = await (await get('/settings', me.cookie)).text();
      expect(page).toContain('name="timezone" value="Europe/Berlin"');
      expect(page).toContain('value="EUR"');
      expect(page).toContain('data-api="/api/dashboard/fx-rates" data-method="PUT"');
      expect(page).toContain('data-type="csv" data-columns="day,currency,rate:number"');
      expect(page).toContain('<tr><td>2026-09-01</td><td>USD</td><td class="num">0.92</td><td>EUR</td></tr>');
      expect(page).not.toContain('GBP</td>');
    });
  });
}
