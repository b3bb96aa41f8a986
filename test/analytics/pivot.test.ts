import { describe, expect, test } from 'bun:test';
import { campaignPivot, PIVOT_SQL, pivotParams, toPivotRow, type PivotRow } from '../../src/analytics/pivot';
import { assemblePivot, campaignTotals, organizationPivot, pivotStatement } from '../../src/analytics/pivot';
import { newId } from '../../src/shared/ids';
import { createOrganization } from '../../src/auth/accounts.service';
import type { Db } from '../../src/db/db';
import { backends } from '../support/db';
import { insertConversion, insertCost, insertEvent, insertInstall } from '../support/facts';
import { insertClick } from '../support/clicks';
import { insertApp, insertCampaign } from '../support/fixtures';
import { hashedDeviceId } from '../support/sdk-fixtures';
import { testMirror } from './mirror/mirror.helpers';

const D0 = '2026-08-09';
const D1 = '2026-08-10';
const D2 = '2026-08-11';
const D3 = '2026-08-12';
const at = (day: string, time = '12:00:00.000') => `${day}T${time}Z`;

/** A day of every kind of fact for one organization; the expected pivot is spelled out in the test. */
async function seed(db: Db, name: string) {
  const orgId = await createOrganization(db, name);
  const { campaignId: c1 } = await insertCampaign(db, orgId);
  const { campaignId: c2 } = await insertCampaign(db, orgId);
  await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [c1, 'Summer, "big" sale']);
  await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [c2, 'Brand']);
  const { appId } = await insertApp(db, orgId);

  for (const time of ['00:00:00.000', '12:00:00.000', '23:59:59.999']) await insertClick(db, { orgId, campaignId: c1, createdAt: at(D1, time) });
  await insertClick(db, { orgId, campaignId: c1, createdAt: at(D1), dropReason: 'bot' });
  await insertClick(db, { orgId, campaignId: c1, createdAt: at(D2) });
  await insertClick(db, { orgId, createdAt: at(D1) });
  await insertClick(db, { orgId, createdAt: at(D1) });
  await insertClick(db, { orgId, campaignId: c1, createdAt: at(D0, '23:59:59.999') });
  await insertClick(db, { orgId, campaignId: c1, createdAt: at(D3, '00:00:00.000') });

  const paid = await insertInstall(db, { orgId, appId, campaignId: c1, installedAt: at(D1) });
  await insertInstall(db, { orgId, appId, campaignId: c1, installedAt: at(D1) });
  const organic = await insertInstall(db, { orgId, appId, installedAt: at(D2) });
  await insertInstall(db, { orgId, appId, campaignId: c1, installedAt: at(D3) });

  await insertConversion(db, { orgId, campaignId: c1, createdAt: at(D1), value: 10.5 });
  await insertConversion(db, { orgId, campaignId: c1, createdAt: at(D1), value: null });
  await insertConversion(db, { orgId, createdAt: at(D2), value: 3 });
  await insertConversion(db, { orgId, campaignId: c1, createdAt: at(D0), value: 1000 });

  // Revenue goes to the campaign of the install that made it, on the day it was made.
  await insertEvent(db, { orgId, appId, deviceIdHash: paid.deviceIdHash, installId: paid.installId, name: 'purchase', value: 20, occurredAt: at(D2) });
  await insertEvent(db, { orgId, appId, deviceIdHash: organic.deviceIdHash, name: 'ad_revenue', value: 0.25, occurredAt: at(D2) });
  await insertEvent(db, { orgId, appId, deviceIdHash: paid.deviceIdHash, name: 'session_start', value: 99, occurredAt: at(D2) });
  await insertEvent(db, { orgId, appId, deviceIdHash: hashedDeviceId(), name: 'purchase', value: 7, occurredAt: at(D1) });
  // Store notifications: a renewal adds its price, a refund subtracts; other transitions carry no value.
  await insertEvent(db, { orgId, appId, deviceIdHash: paid.deviceIdHash, installId: paid.installId, name: 'subscription_renewed', value: 5, occurredAt: at(D2) });
  await insertEvent(db, { orgId, appId, deviceIdHash: paid.deviceIdHash, installId: paid.installId, name: 'subscription_refunded', value: -2, occurredAt: at(D2) });
  await insertEvent(db, { orgId, appId, deviceIdHash: paid.deviceIdHash, installId: paid.installId, name: 'subscription_cancelled', value: null, occurredAt: at(D2) });

  await insertCost(db, { orgId, campaignId: c1, day: D1, spend: 30 });
  await insertCost(db, { orgId, campaignId: c1, day: D2, spend: 0 });
  await insertCost(db, { orgId, campaignId: c2, day: D2, spend: 12 });
  await insertCost(db, { orgId, campaignId: c2, day: D3, spend: 500 });
  return { orgId, c1, c2 };
}

const row = (fields: Partial<PivotRow> & Pick<PivotRow, 'day'>): PivotRow => ({
  campaign_id: null, campaign: null, clicks: 0, installs: 0, conversions: 0, revenue: 0, spend: 0, cpi: null, roas: null, ...fields,
});

for (const backend of backends()) {
  describe(`campaignPivot on ${backend.name}`, async () => {
    const db = await backend.create();
    const mirror = await testMirror({ db });
    const mine = await seed(db, 'Mine');
    const theirs = await seed(db, 'Theirs');
    const expected = [
      row({ day: D1, revenue: 7, clicks: 2 }),
      row({ day: D1, campaign_id: mine.c1, campaign: 'Summer, "big" sale', clicks: 3, installs: 2, conversions: 2, revenue: 10.5, spend: 30, cpi: 15, roas: 0.35 }),
      row({ day: D2, installs: 1, conversions: 1, revenue: 3.25, cpi: 0 }),
      row({ day: D2, campaign_id: mine.c1, campaign: 'Summer, "big" sale', clicks: 1, revenue: 23 }),
      row({ day: D2, campaign_id: mine.c2, campaign: 'Brand', spend: 12, roas: 0 }),
    ].sort((a, b) => a.day.localeCompare(b.day) || (a.campaign_id ?? '').localeCompare(b.campaign_id ?? ''));

    test('one row per day and campaign, each source counted once, only this organization', async () => {
      expect(await campaignPivot(mirror, { orgId: mine.orgId, from: D1, to: D2 })).toEqual(expected);
      const other = await campaignPivot(mirror, { orgId: theirs.orgId, from: D1, to: D2 });
      expect(other.map((r) => r.campaign_id)).toEqual([null, theirs.c1, null, theirs.c1, theirs.c2]);
    });

    test('the same SQL gives the same rows on the database itself', async () => {
      const direct = (await db.query<Record<string, unknown>>(PIVOT_SQL, pivotParams({ orgId: mine.orgId, from: D1, to: D2 }))).map(toPivotRow);
      expect(direct).toEqual(expected);
    });

    test('the window is whole UTC days, both ends included', async () => {
      const one = await campaignPivot(mirror, { orgId: mine.orgId, from: D2, to: D2 });
      expect(one).toEqual(expected.filter((r) => r.day === D2));
      const wide = await campaignPivot(mirror, { orgId: mine.orgId, from: D0, to: D3 });
      expect(wide.find((r) => r.day === D0 && r.campaign_id === mine.c1)).toEqual(row({ day: D0, campaign_id: mine.c1, campaign: 'Summer, "big" sale', clicks: 1, conversions: 1, revenue: 1000 }));
      expect(wide.filter((r) => r.day === D3)).toEqual([
        row({ day: D3, campaign_id: mine.c1, campaign: 'Summer, "big" sale', clicks: 1, installs: 1, cpi: 0 }),
        row({ day: D3, campaign_id: mine.c2, campaign: 'Brand', spend: 500, roas: 0 }),
      ].sort((a, b) => a.campaign_id!.localeCompare(b.campaign_id!)));
    });

    test('a rename reaches the report', async () => {
      await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [mine.c2, 'Brand EU']);
      const rows = await campaignPivot(mirror, { orgId: mine.orgId, from: D2, to: D2 });
      expect(rows.find((r) => r.campaign_id === mine.c2)?.campaign).toBe('Brand EU');
    });

    test('an unknown organization has no rows; a bad window throws before reading', async () => {
      expect(await campaignPivot(mirror, { orgId: 'org_unknown', from: D0, to: D3 })).toEqual([]);
      await expect(campaignPivot(mirror, { orgId: mine.orgId, from: D2, to: D1 })).rejects.toThrow(RangeError);
      await expect(campaignPivot(mirror, { orgId: mine.orgId, from: '2026-02-30', to: D1 })).rejects.toThrow(RangeError);
      await expect(campaignPivot(mirror, { orgId: mine.orgId, from: "2026-08-10' OR 1=1", to: D1 })).rejects.toThrow(RangeError);
    });
  });
}

/** A rate straight into storage, quoted in `quote` (PUT /api/v1/fx-rates quotes in the reporting currency). */
async function insertRate(db: Db, orgId: string, day: string, currency: string, rate: number, quote = 'USD') {
  await db.query('INSERT INTO fx_rates (id, org_id, day, currency, rate, quote) VALUES ($1, $2, $3::date, $4, $5, $6)', [newId(), orgId, day, currency, rate, quote]);
}

for (const backend of backends()) {
  describe(`the pivot in the organization's zone and currency on ${backend.name}`, async () => {
    const db = await backend.create();
    const mirror = await testMirror({ db });
    const deps = { db, mirror };
    const direct = async (q: Parameters<typeof pivotStatement>[0]) => {
      const { sql, params } = pivotStatement(q);
      return assemblePivot(await db.query<Record<string, unknown>>(sql, params)).rows;
    };

    test('Europe/Berlin: 23:30 UTC is the next local day, the window follows the clocks across DST, costs keep their day', async () => {
      const orgId = await createOrganization(db, 'Berlin');
      await db.query("UPDATE organizations SET timezone = 'Europe/Berlin' WHERE id = $1", [orgId]);
      const { campaignId } = await insertCampaign(db, orgId);
      const { appId } = await insertApp(db, orgId);
      // Clocks go from +1 to +2 at 2026-03-29T01:00Z: local 03-29 starts 03-28T23:00Z, 03-30 starts 03-29T22:00Z.
      for (const at of ['2026-03-28T22:59:59.000Z', '2026-03-28T23:30:00.000Z', '2026-03-29T21:59:00.000Z', '2026-03-29T22:30:00.000Z', '2026-03-30T21:59:59.999Z', '2026-03-30T22:00:00.000Z']) {
        await insertClick(db, { orgId, campaignId, createdAt: at });
      }
      await insertInstall(db, { orgId, appId, campaignId, installedAt: '2026-03-29T22:10:00.000Z' });
      await insertConversion(db, { orgId, campaignId, createdAt: '2026-03-28T23:30:00.000Z', value: 5 });
      await insertCost(db, { orgId, campaignId, day: '2026-03-30', spend: 10 });
      const local = [
        row({ day: '2026-03-29', campaign_id: campaignId, campaign: 'Campaign', clicks: 2, conversions: 1, revenue: 5 }),
        row({ day: '2026-03-30', campaign_id: campaignId, campaign: 'Campaign', clicks: 2, installs: 1, spend: 10, cpi: 10, roas: 0 }),
      ];
      const report = await organizationPivot(deps, { orgId, from: '2026-03-29', to: '2026-03-30' });
      expect(report).toEqual({ timezone: 'Europe/Berlin', currency: 'USD', rows: local, unconverted: {}, unconverted_spend: {} });
      expect(await direct({ orgId, from: '2026-03-29', to: '2026-03-30', timezone: 'Europe/Berlin' })).toEqual(local);
      // The same rows in UTC days.
      expect(await campaignPivot(mirror, { orgId, from: '2026-03-29', to: '2026-03-30' })).toEqual([
        row({ day: '2026-03-29', campaign_id: campaignId, campaign: 'Campaign', clicks: 2, installs: 1, cpi: 0 }),
        row({ day: '2026-03-30', campaign_id: campaignId, campaign: 'Campaign', clicks: 2, spend: 10, roas: 0 }),
      ]);
      // Summer: 23:30 UTC is 01:30 of the next day.
      await insertClick(db, { orgId, campaignId, createdAt: '2026-07-14T23:30:00.000Z' });
      expect((await organizationPivot(deps, { orgId, from: '2026-07-14', to: '2026-07-15' })).rows.map((r) => [r.day, r.clicks])).toEqual([['2026-07-15', 1]]);
    });

    test('amounts converted with the latest rate on or before their day; without one they are reported apart, by currency', async () => {
      const orgId = await createOrganization(db, 'Rates');
      const { campaignId: c1 } = await insertCampaign(db, orgId);
      const { campaignId: c2 } = await insertCampaign(db, orgId);
      const { appId } = await insertApp(db, orgId);
      await insertRate(db, orgId, '2026-05-01', 'EUR', 1.25);
      await insertRate(db, orgId, '2026-05-03', 'EUR', 1.5);
      await insertRate(db, orgId, '2026-05-05', 'JPY', 0.0078125);
      // Quoted in another reporting currency than the organization's: never used.
      await insertRate(db, orgId, '2026-05-01', 'CHF', 0.5, 'GBP');
      const install = await insertInstall(db, { orgId, appId, campaignId: c1, installedAt: '2026-05-01T10:00:00Z' });
      const sale = (day: string, value: number, currency: string | null) => insertConversion(db, { orgId, campaignId: c1, createdAt: `${day}T12:00:00Z`, value, currency });
      await sale('2026-05-01', 10, 'EUR');
      await sale('2026-05-02', 10, 'EUR');
      await sale('2026-05-02', 5, 'GBP');
      await sale('2026-05-02', 7, null);
      await sale('2026-05-02', 3, 'USD');
      await sale('2026-05-02', 2, 'CHF');
      await sale('2026-05-03', 10, 'EUR');
      await sale('2026-05-04', 1000, 'JPY');
      await sale('2026-05-05', 1000, 'JPY');
      await insertEvent(db, { orgId, appId, deviceIdHash: install.deviceIdHash, installId: install.installId, name: 'purchase', value: 20, currency: 'EUR', occurredAt: '2026-05-02T08:00:00Z' });
      await insertCost(db, { orgId, campaignId: c1, day: '2026-05-02', spend: 20, currency: 'EUR' });
      await insertCost(db, { orgId, campaignId: c2, day: '2026-05-02', spend: 4, currency: 'GBP' });
      const c1Row = (fields: Partial<PivotRow> & Pick<PivotRow, 'day'>) => row({ campaign_id: c1, campaign: 'Campaign', ...fields });
      const expected = [
        c1Row({ day: '2026-05-01', installs: 1, conversions: 1, revenue: 12.5, cpi: 0 }),
        c1Row({ day: '2026-05-02', conversions: 5, revenue: 12.5 + 7 + 3 + 25, spend: 25, unconverted: { CHF: 2, GBP: 5 } }),
        row({ day: '2026-05-02', campaign_id: c2, campaign: 'Campaign', unconverted_spend: { GBP: 4 } }),
        c1Row({ day: '2026-05-03', conversions: 1, revenue: 15 }),
        c1Row({ day: '2026-05-04', conversions: 1, unconverted: { JPY: 1000 } }),
        c1Row({ day: '2026-05-05', conversions: 1, revenue: 7.8125 }),
      ].sort((a, b) => a.day.localeCompare(b.day) || a.campaign_id!.localeCompare(b.campaign_id!));
      const report = await organizationPivot(deps, { orgId, from: '2026-05-01', to: '2026-05-05' });
      expect(report).toEqual({ timezone: 'UTC', currency: 'USD', rows: expected, unconverted: { CHF: 2, GBP: 5, JPY: 1000 }, unconverted_spend: { GBP: 4 } });
      expect(await direct({ orgId, from: '2026-05-01', to: '2026-05-05', currency: 'USD' })).toEqual(expected);

      // Per campaign, the ratios over a partly unconverted amount stay null; the amounts apart are summed.
      const { campaigns, total } = campaignTotals(report.rows);
      expect(campaigns.find((c) => c.campaign_id === c1)).toMatchObject({ revenue: 82.8125, spend: 25, cpi: 25, roas: null, unconverted: { CHF: 2, GBP: 5, JPY: 1000 } });
      expect(campaigns.find((c) => c.campaign_id === c2)).toMatchObject({ spend: 0, cpi: null, roas: null, unconverted_spend: { GBP: 4 } });
      expect(total).toMatchObject({ revenue: 82.8125, spend: 25, roas: null, cpi: null, unconverted: { CHF: 2, GBP: 5, JPY: 1000 }, unconverted_spend: { GBP: 4 } });

      // In GBP the rates quoted in USD no longer apply and the CHF rate quoted in GBP does; GBP and amounts without a currency need none.
      await db.query("UPDATE organizations SET currency = 'GBP' WHERE id = $1", [orgId]);
      const inPounds = await organizationPivot(deps, { orgId, from: '2026-05-02', to: '2026-05-02' });
      expect(inPounds.currency).toBe('GBP');
      expect(inPounds.rows.find((r) => r.campaign_id === c1)).toMatchObject({ revenue: 5 + 7 + 1, spend: 0, unconverted: { EUR: 30, USD: 3 }, unconverted_spend: { EUR: 20 } });
      expect(inPounds.unconverted_spend).toEqual({ EUR: 20 });
    });
  });
}
