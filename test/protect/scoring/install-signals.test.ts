import { describe, expect, test } from 'bun:test';
import { installSignals } from '../../../src/protect/scoring/install-signals';
import { CLICK_TO_INSTALL, riskScore } from '../../../src/tracking/risk/risk-signals';
import { body, testApp } from '../../support/app';
import { ANDROID_PHONE, insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { insertCampaign, insertLink, orgWithKey } from '../../support/fixtures';
import { hashedDeviceId, sdkApp } from '../../support/sdk-fixtures';
import { sdkCall } from '../../sdk/support';

describe('click-to-install timing', () => {
  const click = new Date('2026-09-02T10:00:00Z');
  const after = (ms: number) => new Date(click.getTime() + ms);
  test('fast below 10 s, slow above 24 h, neither between', () => {
    expect(installSignals(click, after(CLICK_TO_INSTALL.fastBelowMs - 1))).toEqual(['click_to_install_fast']);
    expect(installSignals(click, after(CLICK_TO_INSTALL.fastBelowMs))).toEqual([]);
    expect(installSignals(click, after(3_600_000))).toEqual([]);
    expect(installSignals(click, after(CLICK_TO_INSTALL.slowAboveMs))).toEqual([]);
    expect(installSignals(click, after(CLICK_TO_INSTALL.slowAboveMs + 1))).toEqual(['click_to_install_slow']);
  });
});

for (const backend of backends()) {
  describe(`install risk signals on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const { ipHasher } = t.services;

    async function installAfterClick(clickAgoMs: number, riskReasons: string[] = []) {
      const org = await orgWithKey(db);
      const app = await sdkApp(db, org.orgId, {});
      const { campaignId } = await insertCampaign(db, org.orgId, { appId: app.appId });
      const { linkId } = await insertLink(db, org.orgId, { campaignId });
      const now = Date.now();
      const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: org.orgId, createdAt: new Date(now - clickAgoMs), linkId, campaignId, riskReasons });
      const res = await sdkCall(t, app.sdkKey)('install', {
        device_id: hashedDeviceId(), platform: 'android', click_id: clickId, installed_at: new Date(now).toISOString(),
      });
      expect(res.status).toBe(201);
      expect((await body(res)).attribution.click_id).toBe(clickId);
      const [row] = await db.query<{ risk_score: number; risk_reasons: string[] }>('SELECT risk_score, risk_reasons FROM clicks WHERE id = $1', [clickId]);
      return row!;
    }

    test('an install 3 s after its click marks the click click_to_install_fast, keeping its click signals', async () => {
      const row = await installAfterClick(3_000, ['datacenter_ip']);
      expect(row.risk_reasons).toEqual(['datacenter_ip', 'click_to_install_fast']);
      expect(row.risk_score).toBe(riskScore(['datacenter_ip', 'click_to_install_fast']));
    });

    test('an install 2 days after its click marks it click_to_install_slow', async () => {
      const row = await installAfterClick(2 * 86_400_000);
      expect(row.risk_reasons).toEqual(['click_to_install_slow']);
      expect(row.risk_score).toBe(riskScore(['click_to_install_slow']));
    });

    test('an install an hour after its click adds nothing', async () => {
      const row = await installAfterClick(3_600_000);
      expect(row).toEqual({ risk_score: 0, risk_reasons: [] });
    });
  });
}
