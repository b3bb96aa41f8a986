import '../../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { ulid } from 'ulid';
import { recordBeacon } from '../../../src/protect/beacon/beacon.service';
import { newId } from '../../../src/shared/ids';
import { body, TEST_TRACKING_URL, testApp } from '../../support/app';
import { backends } from '../../support/db';
import { insertLink, orgWithKey } from '../../support/fixtures';
import { clickRisk, riskClick, sendBeacon, storedBeacon } from '../support';

/** What sendBeacon needs not wait for in these tests: the pauses of the wait for a fresh click. */
const noPause = async () => {};

for (const backend of backends()) {
  describe(`beacons for clicks still on their way to ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    // These tests run the pending pass themselves, to see what each run did.
    await t.services.pendingBeacons.stop();
    const deps = { db, clock: t.services.clock, sleep: noPause };
    const { orgId } = await orgWithKey(db);

    test('a beacon sent while its click is still in the pipeline waits for it and applies', async () => {
      const clickId = newId();
      const answer = sendBeacon(t, { click_id: clickId, scroll: 0 });
      // The batcher flushes the click a moment after the beacon arrived.
      await Bun.sleep(150);
      await riskClick(db, { orgId, id: clickId, ip: '198.51.100.40' });
      const res = await answer;
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({ ok: true });
      expect(await clickRisk(db, clickId)).toEqual({ risk_score: 10, risk_reasons: ['no_scroll'] });
      expect(await storedBeacon(db, clickId)).toMatchObject({ org_id: orgId, ip: '198.51.100.40' });
    });

    test('the click id of a redirect answered a moment ago is found, whenever the batcher writes it', async () => {
      const { slug } = await insertLink(db, orgId, { destination: 'https://shop.example.com/landing' });
      const redirect = await t.request(`${TEST_TRACKING_URL}/c/${slug}`);
      expect(redirect.status).toBe(302);
      const clickId = new URL(redirect.headers.get('location')!).searchParams.get('svc_click_id')!;
      const res = await sendBeacon(t, { click_id: clickId, dwell_ms: 200 });
      expect(res.status).toBe(200);
      expect((await storedBeacon(db, clickId))?.org_id).toBe(orgId);
      expect((await clickRisk(db, clickId)).risk_reasons).toEqual(['no_dwell']);
    });

    test('a fresh click id still absent after the wait is kept pending, then applied when the click lands', async () => {
      const clickId = newId();
      expect(await recordBeacon(deps, { click_id: clickId, scroll: 0, dwell_ms: 100 })).toBe('pending');
      expect(await recordBeacon(deps, { click_id: clickId, scroll: 20, webdriver: true })).toBe('pending');
      expect(await storedBeacon(db, clickId)).toMatchObject({ org_id: null, ip: null, scroll: 20, dwell_ms: 100, webdriver: true });
      expect(await t.services.pendingBeacons.runOnce()).toMatchObject({ applied: 0 });

      await riskClick(db, { orgId, id: clickId, ip: '198.51.100.41', reasons: ['datacenter_ip'] });
      expect(await t.services.pendingBeacons.runOnce()).toMatchObject({ applied: 1 });
      expect(await storedBeacon(db, clickId)).toMatchObject({ org_id: orgId, ip: '198.51.100.41', scroll: 20, dwell_ms: 100 });
      expect(await clickRisk(db, clickId)).toEqual({ risk_score: 100, risk_reasons: ['datacenter_ip', 'webdriver', 'no_dwell'] });
      // Applied once: the next run finds nothing to do.
      expect(await t.services.pendingBeacons.runOnce()).toMatchObject({ applied: 0 });
    });

    test('over HTTP a pending beacon answers 200 {ok: true} after the wait', async () => {
      const clickId = newId();
      const res = await sendBeacon(t, { click_id: clickId, scroll: 0 });
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({ ok: true });
      expect(await storedBeacon(db, clickId)).toMatchObject({ org_id: null, scroll: 0 });
    });

    test('a pending beacon whose click never lands is deleted after 15 minutes', async () => {
      const stale = newId();
      const recent = newId();
      await recordBeacon(deps, { click_id: stale, scroll: 0 });
      await recordBeacon(deps, { click_id: recent, scroll: 0 });
      await db.query("UPDATE click_beacons SET first_at = now() - interval '16 minutes' WHERE click_id = $1", [stale]);
      const run = await t.services.pendingBeacons.runOnce();
      expect(run.expired).toBeGreaterThanOrEqual(1);
      expect(await storedBeacon(db, stale)).toBeUndefined();
      expect(await storedBeacon(db, recent)).toBeDefined();
    });

    test('a click id that is no ULID, or an old or future one, is never kept pending', async () => {
      for (const clickId of ['late-click-id', ulid(Date.now() - 11_000), ulid(Date.now() + 60_000)]) {
        await expect(recordBeacon(deps, { click_id: clickId, scroll: 0 })).rejects.toMatchObject({ status: 404, body: { error: 'click not found' } });
        expect(await storedBeacon(db, clickId)).toBeUndefined();
      }
    });

    test('a pending beacon joins the organization of the click that lands, and scores only that click', async () => {
      const other = await orgWithKey(db, 'Other');
      const clickId = newId();
      const bystander = await riskClick(db, { orgId, ip: '198.51.100.50' });
      await recordBeacon(deps, { click_id: clickId, screen: '1x1' });
      await riskClick(db, { orgId: other.orgId, id: clickId, ip: '198.51.100.51' });
      await t.services.pendingBeacons.runOnce();
      expect((await storedBeacon(db, clickId))?.org_id).toBe(other.orgId);
      expect(await clickRisk(db, clickId)).toEqual({ risk_score: 30, risk_reasons: ['screen_invalid'] });
      expect(await clickRisk(db, bystander)).toEqual({ risk_score: 0, risk_reasons: [] });
    });
  });
}
