import { describe, expect, test } from 'bun:test';
import { runWaterfall } from '../../src/attribution/waterfall';
import { ANDROID_PHONE, insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, insertLink } from '../support/fixtures';
import { hoursAgo, insertImpression, minutesAgo } from '../support/sdk-fixtures';
import { AT, ipHasher, tenant, waterfallInput } from './support';

const IP = '198.51.100.23';
const NEIGHBOUR = '198.51.100.200'; // same /24
const ELSEWHERE = '192.0.2.77';

for (const backend of backends()) {
  describe(`signal tiers on ${backend.name}`, async () => {
    const db = await backend.create();
    const deps = { db, ipHasher };

    describe('DEFERRED_DEEPLINK', () => {
      test('a deep-link click from the same IP and OS family inside 2 hours: the path comes back with a confidence', async () => {
        const t = await tenant(db);
        const { campaignId } = await insertCampaign(db, t.orgId, { appId: t.appId });
        const { linkId } = await insertLink(db, t.orgId, { campaignId, deepLinkPath: '/promo/spring' });
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: minutesAgo(AT, 30), linkId, campaignId, osFamily: 'Android', osVersion: '14' });
        const result = await runWaterfall(deps, waterfallInput(t, { ip: IP, osVersion: '14' }));
        expect(result).toMatchObject({ method: 'DEFERRED_DEEPLINK', clickId, campaignId, deepLinkPath: '/promo/spring' });
        expect(result.evidence).toMatchObject({ signals: ['ip', 'os_family', 'os_version'], window: { hours: 2 }, candidates: 1 });
        expect(result.confidence).toBeGreaterThan(0.6);
        expect(result.confidence).toBeLessThanOrEqual(0.8);
      });

      test('near misses: past the window it is only PROBABILISTIC (path still returned); other OS, other IP, other organization never', async () => {
        const t = await tenant(db);
        const { linkId } = await insertLink(db, t.orgId, { deepLinkPath: '/late' });
        const late = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 3), linkId });
        const result = await runWaterfall(deps, waterfallInput(t, { ip: IP }));
        expect(result).toMatchObject({ method: 'PROBABILISTIC', clickId: late, deepLinkPath: '/late' });

        const u = await tenant(db);
        const { linkId: other } = await insertLink(db, u.orgId, { deepLinkPath: '/x' });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: u.orgId, ip: IP, createdAt: minutesAgo(AT, 10), linkId: other, osFamily: 'iOS' });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: u.orgId, ip: ELSEWHERE, createdAt: minutesAgo(AT, 10), linkId: other });
        const foreign = await tenant(db);
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: foreign.orgId, ip: IP, createdAt: minutesAgo(AT, 10), linkId: other });
        const none = await runWaterfall(deps, waterfallInput(u, { ip: IP, settings: { household_window_hours: 0 } }));
        expect(none.method).toBe('ORGANIC');
      });
    });

    describe('PROBABILISTIC', () => {
      test('any click from the same IP and OS family in 24 hours, with the signals and a confidence recorded', async () => {
        const t = await tenant(db);
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 5), osFamily: 'Android', osVersion: '10' });
        const result = await runWaterfall(deps, waterfallInput(t, { ip: IP, osVersion: '14' }));
        expect(result).toMatchObject({ method: 'PROBABILISTIC', clickId, deepLinkPath: null });
        // Android "10" is what Chrome's reduced user agent reports for every device: not evidence either way.
        expect(result.evidence.signals).toEqual(['ip', 'os_family']);
        expect(result.confidence).toBeCloseTo(0.6 * (1 - 0.5 * (5 / 24)), 2);
      });

      test('a known OS version or device type that disagrees is another device', async () => {
        const t = await tenant(db);
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 1), osFamily: 'iOS', osVersion: '16.2', deviceType: 'mobile' });
        expect((await runWaterfall(deps, waterfallInput(t, { platform: 'ios', ip: IP, osVersion: '17.4.1', settings: { household_window_hours: 0 } }))).method).toBe('ORGANIC');
        const matching = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 2), osFamily: 'iOS', osVersion: '17.4', deviceType: 'mobile' });
        const result = await runWaterfall(deps, waterfallInput(t, { platform: 'ios', ip: IP, osVersion: '17.4.1' }));
        expect(result).toMatchObject({ method: 'PROBABILISTIC', clickId: matching });
        expect(result.evidence.signals).toEqual(['ip', 'os_family', 'os_version']);

        const tv = await tenant(db, { platform: 'fire_tv' });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: tv.orgId, ip: IP, createdAt: hoursAgo(AT, 1), osFamily: 'Android', deviceType: 'mobile' });
        expect((await runWaterfall(deps, waterfallInput(tv, { platform: 'fire_tv', ip: IP, settings: { household_window_hours: 0 } }))).method).toBe('ORGANIC');
        const set = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: tv.orgId, ip: IP, createdAt: hoursAgo(AT, 2), osFamily: 'Android', deviceType: 'smarttv' });
        const tvResult = await runWaterfall(deps, waterfallInput(tv, { platform: 'fire_tv', ip: IP }));
        expect(tvResult).toMatchObject({ method: 'PROBABILISTIC', clickId: set });
        expect(tvResult.evidence.signals).toEqual(['ip', 'os_family', 'device_type']);
      });

      test('several campaigns on one address split the confidence', async () => {
        const t = await tenant(db);
        const a = await insertCampaign(db, t.orgId);
        const b = await insertCampaign(db, t.orgId);
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 2), campaignId: a.campaignId });
        const latest = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 1), campaignId: b.campaignId });
        const result = await runWaterfall(deps, waterfallInput(t, { ip: IP }));
        expect(result).toMatchObject({ method: 'PROBABILISTIC', clickId: latest, campaignId: b.campaignId });
        expect(result.confidence).toBeCloseTo((0.6 * (1 - 0.5 * (1 / 24))) / 2, 2);
        expect(result.evidence.candidates).toBe(2);
      });

      test('near misses: 25 hours ago, another OS, another organization, a campaign for another app, a dropped click', async () => {
        const t = await tenant(db);
        const foreign = await tenant(db);
        const otherApp = await insertCampaign(db, t.orgId, { appId: (await tenant(db)).appId });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 25) });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 1), osFamily: 'iOS' });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: foreign.orgId, ip: IP, createdAt: hoursAgo(AT, 1) });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 1), campaignId: otherApp.campaignId });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 1), dropReason: 'bot' });
        expect((await runWaterfall(deps, waterfallInput(t, { ip: IP, settings: { household_window_hours: 0 } }))).method).toBe('ORGANIC');
        // The same data with a 26-hour window: only the old click qualifies.
        expect((await runWaterfall(deps, waterfallInput(t, { ip: IP, settings: { probabilistic_window_hours: 26 } }))).method).toBe('PROBABILISTIC');
      });

      test('an unknown address switches the IP tiers off', async () => {
        const t = await tenant(db);
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 1) });
        expect((await runWaterfall(deps, waterfallInput(t, { ip: null }))).method).toBe('ORGANIC');
      });
    });

    describe('VIEW_THROUGH', () => {
      test('an impression with the same IP-day hash inside 24 hours', async () => {
        const t = await tenant(db, { platform: 'roku' });
        const { campaignId } = await insertCampaign(db, t.orgId);
        const impressionId = await insertImpression(db, ipHasher, { orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 3), campaignId });
        const result = await runWaterfall(deps, waterfallInput(t, { platform: 'roku', ip: IP }));
        expect(result).toMatchObject({ method: 'VIEW_THROUGH', impressionId, campaignId, clickId: null, deepLinkPath: null });
        expect(result.evidence).toMatchObject({ touch: 'impression', signals: ['ip_day_hash'], window: { hours: 24 } });
        expect(result.confidence).toBeCloseTo(0.5 * (1 - 0.5 * (3 / 24)), 2);
      });

      test('an impression of the previous UTC day still matches inside the window', async () => {
        const t = await tenant(db);
        const at = new Date('2026-03-10T00:30:00.000Z');
        const impressionId = await insertImpression(db, ipHasher, { orgId: t.orgId, ip: IP, createdAt: new Date('2026-03-09T22:00:00.000Z') });
        expect(await runWaterfall(deps, waterfallInput(t, { ip: IP, at }))).toMatchObject({ method: 'VIEW_THROUGH', impressionId });
      });

      test('near misses: 25 hours ago, another organization, an impression for another app', async () => {
        const t = await tenant(db);
        const foreign = await tenant(db);
        await insertImpression(db, ipHasher, { orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 25) });
        await insertImpression(db, ipHasher, { orgId: foreign.orgId, ip: IP, createdAt: hoursAgo(AT, 1) });
        await insertImpression(db, ipHasher, { orgId: t.orgId, ip: IP, createdAt: hoursAgo(AT, 1), appId: foreign.appId });
        expect((await runWaterfall(deps, waterfallInput(t, { ip: IP, settings: { household_window_hours: 0 } }))).method).toBe('ORGANIC');
      });
    });

    describe('HOUSEHOLD', () => {
      test('a connected TV: an impression on another address of the same /24 inside 72 hours', async () => {
        const t = await tenant(db, { platform: 'samsung_tv' });
        const { campaignId } = await insertCampaign(db, t.orgId);
        const impressionId = await insertImpression(db, ipHasher, { orgId: t.orgId, ip: NEIGHBOUR, createdAt: hoursAgo(AT, 48), campaignId });
        const result = await runWaterfall(deps, waterfallInput(t, { platform: 'samsung_tv', ip: IP }));
        expect(result).toMatchObject({ method: 'HOUSEHOLD', impressionId, campaignId });
        expect(result.evidence).toMatchObject({ signals: ['household_hash'], window: { hours: 72 } });
        expect(result.confidence).toBeCloseTo(0.25 * (1 - 0.5 * (48 / 72)), 2);
      });

      test('a household click outranks a newer household impression; the IPv6 household is the /48', async () => {
        const t = await tenant(db, { platform: 'tvos' });
        const { linkId } = await insertLink(db, t.orgId, { deepLinkPath: '/show/7' });
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: '2001:db8:aa:1::5', createdAt: hoursAgo(AT, 30), linkId, osFamily: 'iOS' });
        await insertImpression(db, ipHasher, { orgId: t.orgId, ip: '2001:db8:aa:2::9', createdAt: hoursAgo(AT, 26) });
        const result = await runWaterfall(deps, waterfallInput(t, { platform: 'tvos', ip: '2001:db8:aa:ffff::1' }));
        expect(result).toMatchObject({ method: 'HOUSEHOLD', clickId, deepLinkPath: '/show/7' });
        expect((await runWaterfall(deps, waterfallInput(t, { platform: 'tvos', ip: '2001:db8:ab::1' }))).method).toBe('ORGANIC');
      });

      test('near misses: 73 hours ago, another organization, another /24', async () => {
        const t = await tenant(db, { platform: 'lg_tv' });
        const foreign = await tenant(db);
        await insertImpression(db, ipHasher, { orgId: t.orgId, ip: NEIGHBOUR, createdAt: hoursAgo(AT, 73) });
        await insertImpression(db, ipHasher, { orgId: foreign.orgId, ip: NEIGHBOUR, createdAt: hoursAgo(AT, 1) });
        await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, ip: '198.51.101.23', createdAt: hoursAgo(AT, 1) });
        expect((await runWaterfall(deps, waterfallInput(t, { platform: 'lg_tv', ip: IP }))).method).toBe('ORGANIC');
        expect((await runWaterfall(deps, waterfallInput(t, { platform: 'lg_tv', ip: IP, settings: { household_window_hours: 74 } }))).method).toBe('HOUSEHOLD');
      });
    });

    describe('SKAN and ORGANIC', () => {
      test('an unmatched iOS install of an app with SKAdNetwork enabled is SKAN, with no campaign yet', async () => {
        const t = await tenant(db, { platform: 'ios' });
        const result = await runWaterfall(deps, waterfallInput(t, { platform: 'ios', ip: ELSEWHERE, settings: { skan_enabled: true } }));
        expect(result).toMatchObject({ method: 'SKAN', campaignId: null, clickId: null });
      });

      test('SKAN needs iOS and the switch; a matched touch comes first', async () => {
        const t = await tenant(db, { platform: 'ios' });
        expect((await runWaterfall(deps, waterfallInput(t, { platform: 'ios', ip: ELSEWHERE }))).method).toBe('ORGANIC');
        expect((await runWaterfall(deps, waterfallInput(t, { platform: 'android', ip: ELSEWHERE, settings: { skan_enabled: true } }))).method).toBe('ORGANIC');
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: t.orgId, createdAt: hoursAgo(AT, 1), ip: null, osFamily: 'iOS' });
        expect((await runWaterfall(deps, waterfallInput(t, { platform: 'ios', clickId, settings: { skan_enabled: true } }))).method).toBe('CLICK_ID');
      });
    });
  });
}
