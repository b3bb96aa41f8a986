import { describe, expect, test } from 'bun:test';
import { markUninstalled } from '../../src/uninstalls/uninstalls.repo';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign, orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { apnsToken, deviceWithToken } from './support';

for (const backend of backends()) {
  describe(`GET /api/v1/uninstalls on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { workers: false, mirror: false });
    const org = await orgWithKey(db);
    const campaignA = (await insertCampaign(db, org.orgId)).campaignId;
    const campaignB = (await insertCampaign(db, org.orgId)).campaignId;
    const DAY_1 = new Date('2026-09-01T12:00:00Z');
    const DAY_2 = new Date('2026-09-02T12:00:00Z');

    /** An install of `appOf` (or a new app) attributed to `campaignId`, marked uninstalled at `at` unless null. */
    async function install(campaignId: string | null, at: Date | null, appOf?: { sdkKey: string; appId: string }) {
      const d = await deviceWithToken(t, { platform: 'ios', token: apnsToken(), orgId: org.orgId });
      const appId = appOf?.appId ?? d.appId;
      if (appOf) await db.query('UPDATE installs SET app_id = $2 WHERE id = $1', [d.installId, appId]);
      await db.query('UPDATE installs SET campaign_id = $2 WHERE id = $1', [d.installId, campaignId]);
      if (at) expect(await markUninstalled(db, { orgId: d.orgId, installId: d.installId, token: d.token, provider: 'apns', at })).toBe(true);
      return { ...d, appId };
    }

    const first = await install(campaignA, DAY_1);
    await install(campaignA, DAY_2, first);
    await install(campaignB, DAY_2);
    await install(null, DAY_1);
    await install(campaignB, null);
    const reinstalled = await install(campaignB, DAY_1);
    expect((await reinstalled.call('open', { device_id: reinstalled.deviceId })).status).toBe(200);

    const get = (query = '', auth: Record<string, string> = org.auth) => t.request(`/api/v1/uninstalls${query}`, { headers: auth });

    test('counts the installs marked uninstalled per campaign, most first; a reinstall no longer counts', async () => {
      const res = await get();
      expect(res.status).toBe(200);
      expectSecurityHeaders(res);
      expect(await body(res)).toEqual({
        data: [
          { campaign_id: campaignA, uninstalls: 2 },
          { campaign_id: campaignB, uninstalls: 1 },
          { campaign_id: null, uninstalls: 1 },
        ],
      });
    });

    test('filters by app and by the time of detection, [from, to)', async () => {
      expect(await body(await get(`?app_id=${first.appId}`))).toEqual({ data: [{ campaign_id: campaignA, uninstalls: 2 }] });
      expect(await body(await get('?from=2026-09-02'))).toEqual({
        data: [
          { campaign_id: campaignA, uninstalls: 1 },
          { campaign_id: campaignB, uninstalls: 1 },
        ].sort((a, b) => a.campaign_id.localeCompare(b.campaign_id)),
      });
      expect(await body(await get('?to=2026-09-02T12:00:00Z'))).toEqual({
        data: [
          { campaign_id: campaignA, uninstalls: 1 },
          { campaign_id: null, uninstalls: 1 },
        ],
      });
      expect(await body(await get('?from=2026-09-03&to=2026-09-04'))).toEqual({ data: [] });
    });

    test('bad input answers 400 naming the field; no key answers 401', async () => {
      const bad = await get('?from=yesterday&to=2026-13-01');
      expect(bad.status).toBe(400);
      expect(Object.keys((await body(bad)).error.fieldErrors).sort()).toEqual(['from', 'to']);
      expect((await body(await get('?from=2026-09-02&to=2026-09-02'))).error.fieldErrors).toEqual({ to: ['must be later than from'] });
      expect((await body(await get('?app_id=nope'))).error.fieldErrors).toEqual({ app_id: ['unknown app'] });
      const anonymous = await get('', {});
      expect(anonymous.status).toBe(401);
      expect(await body(anonymous)).toEqual({ error: 'unauthorized' });
    });

    test("another organization sees none of these uninstalls, and this organization's app reads as unknown to it", async () => {
      const stranger = await orgWithKey(db, 'Stranger');
      expect(await body(await get('', stranger.auth))).toEqual({ data: [] });
      const foreignApp = await get(`?app_id=${first.appId}`, stranger.auth);
      expect(foreignApp.status).toBe(400);
      expect((await body(foreignApp)).error.fieldErrors).toEqual({ app_id: ['unknown app'] });
    });
  });
}
