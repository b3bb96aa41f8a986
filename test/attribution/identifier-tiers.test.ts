import { describe, expect, test } from 'bun:test';
import { runWaterfall } from '../../src/attribution/waterfall';
import { newId } from '../../src/shared/ids';
import { ANDROID_PHONE, insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, insertLink } from '../support/fixtures';
import { daysAgo, hoursAgo, minutesAgo } from '../support/sdk-fixtures';
import { AT, ipHasher, tenant, waterfallInput } from './support';

for (const backend of backends()) {
  describe(`identifier tiers on ${backend.name}`, async () => {
    const db = await backend.create();
    const deps = { db, ipHasher };

    describe('CLICK_ID', () => {
      test('the launch click id names a click of this organization: its campaign and deep link come back', async () => {
        const t = await tenant(db);
        const { campaignId } = await insertCampaign(db, t.orgId);
        const { linkId } = await insertLink(db, t.orgId, { campaignId, deepLinkPath: '/product/42' });
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 3), linkId, campaignId, ip: null });
        const result = await runWaterfall(deps, waterfallInput(t, { clickId }));
        expect(result).toMatchObject({ method: 'CLICK_ID', campaignId, clickId, deepLinkPath: '/product/42', confidence: null });
        expect(result.evidence).toMatchObject({ tier: 'CLICK_ID', touch: 'click', click_id: clickId, signals: ['click_id'], window: { days: 7 }, age_seconds: 3 * 3600 });
      });

      test('outside the default 7-day lookback it does not match; a longer app setting brings it back', async () => {
        const t = await tenant(db);
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: daysAgo(AT, 8), ip: null });
        expect((await runWaterfall(deps, waterfallInput(t, { clickId }))).method).toBe('ORGANIC');
        expect((await runWaterfall(deps, waterfallInput(t, { clickId, settings: { click_lookback_days: 10 } }))).method).toBe('CLICK_ID');
      });

      test("another organization's click never attributes", async () => {
        const t = await tenant(db);
        const other = await tenant(db);
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: other.orgId, createdAt: hoursAgo(AT, 1), ip: null });
        expect((await runWaterfall(deps, waterfallInput(t, { clickId }))).method).toBe('ORGANIC');
      });

      test('a dropped click (bot, invalid) never attributes', async () => {
        const t = await tenant(db);
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 1), ip: null, dropReason: 'bot' });
        expect((await runWaterfall(deps, waterfallInput(t, { clickId }))).method).toBe('ORGANIC');
      });

      test('a click after the install does not match, beyond the device clock tolerance of 10 minutes', async () => {
        const t = await tenant(db);
        const later = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: minutesAgo(AT, -60), ip: null });
        const skewed = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: minutesAgo(AT, -5), ip: null });
        expect((await runWaterfall(deps, waterfallInput(t, { clickId: later }))).method).toBe('ORGANIC');
        expect((await runWaterfall(deps, waterfallInput(t, { clickId: skewed }))).method).toBe('CLICK_ID');
      });

      test('with a clock, a click minted moments ago and still on its way to the database is waited for', async () => {
        const t = await tenant(db);
        const late = async (waterfallDeps: Parameters<typeof runWaterfall>[0]) => {
          const clickId = newId();
          const at = new Date();
          const result = runWaterfall(waterfallDeps, waterfallInput(t, { clickId, at }));
          // The click's batch is written a moment after the install arrived (a web landing page).
          await Bun.sleep(150);
          await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, id: clickId, createdAt: at, ip: null });
          return { clickId, result: await result };
        };
        const waited = await late({ ...deps, clock: () => new Date() });
        expect(waited.result).toMatchObject({ method: 'CLICK_ID', clickId: waited.clickId });
        expect((await late(deps)).result.method).toBe('ORGANIC');
      });

      test('re-attribution counts only clicks after the previous attribution', async () => {
        const t = await tenant(db);
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 5), ip: null });
        expect((await runWaterfall(deps, waterfallInput(t, { clickId, after: hoursAgo(AT, 4) }))).method).toBe('ORGANIC');
        expect((await runWaterfall(deps, waterfallInput(t, { clickId, after: hoursAgo(AT, 6) }))).method).toBe('CLICK_ID');
      });
    });

    describe('INSTALL_REFERRER', () => {
      test('svc_click_id in the Play referrer, encoded as the store delivers it', async () => {
        const t = await tenant(db);
        const { campaignId } = await insertCampaign(db, t.orgId);
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 2), campaignId, ip: null });
        for (const referrer of [`svc_click_id=${clickId}&utm_source=ads`, `svc_click_id%3D${clickId}%26utm_source%3Dads`, `referrer=svc_click_id%253D${clickId}`]) {
          const result = await runWaterfall(deps, waterfallInput(t, { installReferrer: referrer }));
          expect(result).toMatchObject({ method: 'INSTALL_REFERRER', campaignId, clickId });
          expect(result.evidence.signals).toEqual(['install_referrer.svc_click_id']);
        }
      });

      test('CLICK_ID comes first when both name a click', async () => {
        const t = await tenant(db);
        const fromLink = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 2), ip: null });
        const fromReferrer = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 1), ip: null });
        const result = await runWaterfall(deps, waterfallInput(t, { clickId: fromLink, installReferrer: `svc_click_id=${fromReferrer}` }));
        expect(result).toMatchObject({ method: 'CLICK_ID', clickId: fromLink });
      });

      test('near misses: outside the lookback, another organization, an unknown id', async () => {
        const t = await tenant(db);
        const other = await tenant(db);
        const old = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: daysAgo(AT, 7.5), ip: null });
        const foreign = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: other.orgId, createdAt: hoursAgo(AT, 1), ip: null });
        for (const id of [old, foreign, '01UNKNOWNCLICKID000000000']) {
          expect((await runWaterfall(deps, waterfallInput(t, { installReferrer: `svc_click_id=${id}` }))).method).toBe('ORGANIC');
        }
      });
    });

    describe('GCLID', () => {
      test('matches the most recent click that carried the gclid', async () => {
        const t = await tenant(db);
        const gclid = `Cj0KCQ${crypto.randomUUID().replaceAll('-', '')}`;
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 20), gclid, ip: null });
        const latest = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 2), gclid, ip: null });
        const result = await runWaterfall(deps, waterfallInput(t, { gclid }));
        expect(result).toMatchObject({ method: 'GCLID', clickId: latest });
        expect(result.evidence.signals).toEqual(['gclid']);
      });

      test('a gclid found in the install referrer counts too', async () => {
        const t = await tenant(db);
        const gclid = `EAIaIQ${crypto.randomUUID().replaceAll('-', '')}`;
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 2), gclid, ip: null });
        const result = await runWaterfall(deps, waterfallInput(t, { installReferrer: `utm_source=google&utm_medium=cpc&gclid=${gclid}` }));
        expect(result).toMatchObject({ method: 'GCLID', clickId });
        expect(result.evidence.signals).toEqual(['install_referrer.gclid']);
      });

      test('near misses: outside the lookback, another organization, a dropped click', async () => {
        const t = await tenant(db);
        const other = await tenant(db);
        const [old, foreign, dropped] = ['Old', 'Foreign', 'Dropped'].map((s) => `${s}${crypto.randomUUID().replaceAll('-', '')}`) as [string, string, string];
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: daysAgo(AT, 8), gclid: old, ip: null });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: other.orgId, createdAt: hoursAgo(AT, 1), gclid: foreign, ip: null });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 1), gclid: dropped, ip: null, dropReason: 'invalid' });
        for (const gclid of [old, foreign, dropped]) expect((await runWaterfall(deps, waterfallInput(t, { gclid }))).method).toBe('ORGANIC');
      });
    });
  });
}
