import { describe, expect, test } from 'bun:test';
import { campaignPivot, PIVOT_SQL, pivotParams, toPivotRow, type PivotRow } from '../../src/analytics/pivot';
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
