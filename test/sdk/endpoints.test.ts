import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { ANDROID_PHONE, insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, insertLink, orgWithKey } from '../support/fixtures';
import { hashedDeviceId, hoursAgo, minutesAgo, sdkApp } from '../support/sdk-fixtures';
import { installIdOf, mirrored, sdkCall } from './support';

for (const backend of backends()) {
  describe(`SDK endpoints on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { workers: false });
    const { ipHasher } = t.services;

    /** An app, a device and (unless told otherwise) its install. */
    async function device(input: { platform?: string; installed?: boolean } = {}) {
      const org = await orgWithKey(db);
      const app = await sdkApp(db, org.orgId, { platform: input.platform ?? 'android' });
      const call = sdkCall(t, app.sdkKey);
      const deviceId = hashedDeviceId();
      let installId: string | null = null;
      if (input.installed !== false) installId = await installIdOf(call, deviceId, input.platform ?? 'android');
      return { ...org, ...app, call, deviceId, installId };
    }

    const count = async (sql: string, params: unknown[]) => (await db.query<{ n: number }>(sql, params))[0]!.n;

    describe('POST /api/sdk/v1/events', () => {
      test('stores the batch linked to the install and answers {accepted}', async () => {
        const d = await device();
        const res = await d.call('events', {
          device_id: d.deviceId,
          events: [
            { name: 'session_start' },
            { name: 'purchase', value: 19.99, currency: 'eur', params: { sku: 'A1', qty: 2 }, occurred_at: minutesAgo(new Date(), 5).toISOString() },
          ],
        });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ accepted: 2 });
        const rows = await db.query<{ name: string; install_id: string; value: number | null; currency: string | null; params: unknown }>(
          'SELECT name, install_id, value, currency, params FROM events WHERE app_id = $1 ORDER BY name DESC',
          [d.appId],
        );
        expect(rows).toEqual([
          { name: 'session_start', install_id: d.installId!, value: null, currency: null, params: null },
          { name: 'purchase', install_id: d.installId!, value: 19.99, currency: 'EUR', params: { sku: 'A1', qty: 2 } },
        ]);
      });

      test('events before any install are stored without an install link', async () => {
        const d = await device({ installed: false });
        expect(await body(await d.call('events', { device_id: d.deviceId, events: [{ name: 'level_complete' }] }))).toEqual({ accepted: 1 });
        expect(await count('SELECT count(*)::int AS n FROM events WHERE app_id = $1 AND install_id IS NULL', [d.appId])).toBe(1);
      });

      test('400 for an empty batch, more than 100 events, a bad currency; nothing stored', async () => {
        const d = await device();
        const event = { name: 'x' };
        for (const [json, field] of [
          [{ device_id: d.deviceId, events: [] }, 'events'],
          [{ device_id: d.deviceId, events: Array.from({ length: 101 }, () => event) }, 'events'],
          [{ device_id: d.deviceId, events: [{ name: 'purchase', value: 1, currency: 'EURO' }] }, 'events.0.currency'],
          [{ device_id: d.deviceId, events: [{ name: '' }] }, 'events.0.name'],
        ] as const) {
          const res = await d.call('events', json);
          expect(res.status).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toContain(field);
        }
        expect(await count('SELECT count(*)::int AS n FROM events WHERE app_id = $1', [d.appId])).toBe(0);
        const hundred = await d.call('events', { device_id: d.deviceId, events: Array.from({ length: 100 }, () => event) });
        expect(await body(hundred)).toEqual({ accepted: 100 });
      });

      test("an install id of another app is never linked; 401 with a bad key", async () => {
        const mine = await device();
        const theirs = await device();
        await mine.call('events', { device_id: hashedDeviceId(), install_id: theirs.installId, events: [{ name: 'x' }] });
        expect(await count('SELECT count(*)::int AS n FROM events WHERE install_id = $1', [theirs.installId])).toBe(0);
        const res = await sdkCall(t, `sk_${'B'.repeat(32)}`)('events', { device_id: mine.deviceId, events: [{ name: 'x' }] });
        expect(res.status).toBe(401);
      });
    });

    describe('POST /api/sdk/v1/open', () => {
      test('a retargeting click parsed from a custom-scheme deep link attributes the re-open', async () => {
        const d = await device();
        const { campaignId } = await insertCampaign(db, d.orgId);
        const { linkId } = await insertLink(db, d.orgId, { campaignId, deepLinkPath: '/product/42' });
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: d.orgId, createdAt: new Date(), linkId, campaignId });
        const res = await d.call('open', { device_id: d.deviceId, url: `myapp://product/42?svc_click_id=${clickId}&ref=push` });
        expect(res.status).toBe(200);
        const answer = await body(res);
        expect(answer).toEqual({ reengagement_id: expect.any(String), attributed: true, campaign_id: campaignId, deep_link_path: '/product/42' });
        const [row] = await db.query('SELECT click_id, attributed, install_id FROM reengagements WHERE id = $1', [answer.reengagement_id]);
        expect(row).toEqual({ click_id: clickId, attributed: true, install_id: d.installId });
      });

      test('an explicit click_id works; an unknown, foreign or pre-install click is recorded unattributed', async () => {
        const d = await device();
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: d.orgId, createdAt: new Date() });
        expect((await body(await d.call('open', { device_id: d.deviceId, click_id: clickId }))).attributed).toBe(true);
        const other = await device();
        const foreign = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: other.orgId, createdAt: new Date() });
        const old = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: d.orgId, createdAt: hoursAgo(new Date(), 2) });
        for (const id of [foreign, old, '01NOSUCHCLICK0000000000000']) {
          const answer = await body(await d.call('open', { device_id: d.deviceId, click_id: id }));
          expect(answer).toMatchObject({ attributed: false, campaign_id: null, deep_link_path: null });
        }
        expect(await count('SELECT count(*)::int AS n FROM reengagements WHERE install_id = $1', [d.installId])).toBe(4);
      });

      test('404 {"error":"install not found"} for a device without an install; 400 on a bad body', async () => {
        const d = await device({ installed: false });
        const res = await d.call('open', { device_id: d.deviceId, url: 'myapp://home' });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'install not found' });
        expect((await d.call('open', { device_id: 'x' })).status).toBe(400);
      });
    });

    describe('POST /api/sdk/v1/push-token', () => {
      test('stores the token on the install and replaces it on repeat', async () => {
        const d = await device({ platform: 'ios' });
        for (const token of ['apns-token-1', 'apns-token-2']) {
          const res = await d.call('push-token', { device_id: d.deviceId, push_token: token, platform: 'ios' });
          expect(res.status).toBe(200);
          expect(await body(res)).toEqual({ install_id: d.installId });
        }
        const [row] = await db.query('SELECT push_token FROM installs WHERE id = $1', [d.installId]);
        expect(row).toEqual({ push_token: 'apns-token-2' });
      });

      test('404 without an install, 400 for another platform or one without push', async () => {
        const none = await device({ installed: false });
        const res = await none.call('push-token', { device_id: none.deviceId, push_token: 't', platform: 'android' });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'install not found' });
        const d = await device();
        expect((await d.call('push-token', { device_id: d.deviceId, push_token: 't', platform: 'ios' })).status).toBe(400);
        expect((await d.call('push-token', { device_id: d.deviceId, push_token: 't', platform: 'roku' })).status).toBe(400);
      });
    });

    describe('POST /api/sdk/v1/subscription', () => {
      test('links the purchase, records subscribe on the install, de-duplicates on store + original_transaction_id', async () => {
        const d = await device({ platform: 'ios' });
        const purchase = { device_id: d.deviceId, store: 'apple', original_transaction_id: `1000000${Date.now()}`, product_id: 'pro.monthly', price_micros: 9_990_000, currency: 'USD' };
        const first = await d.call('subscription', purchase);
        expect(first.status).toBe(200);
        const created = await body(first);
        expect(created).toEqual({ subscription_id: expect.any(String), install_id: d.installId, linked: true, created: true });
        const again = await body(await d.call('subscription', purchase));
        expect(again).toEqual({ ...created, created: false });
        const events = await db.query('SELECT name, value, currency, install_id FROM events WHERE app_id = $1', [d.appId]);
        expect(events).toEqual([{ name: 'subscribe', value: 9.99, currency: 'USD', install_id: d.installId }]);
      });

      test('a trial records trial_start; a purchase seen before the install is linked on repeat', async () => {
        const d = await device({ platform: 'android', installed: false });
        const purchase = { device_id: d.deviceId, store: 'google', purchase_token: `tok-${crypto.randomUUID()}`, product_id: 'pro.yearly', is_trial: true };
        const before = await body(await d.call('subscription', purchase));
        expect(before).toMatchObject({ install_id: null, linked: false, created: true });
        const installId = await installIdOf(d.call, d.deviceId, 'android');
        const after = await body(await d.call('subscription', purchase));
        expect(after).toEqual({ subscription_id: before.subscription_id, install_id: installId, linked: true, created: false });
        const events = await db.query<{ name: string }>('SELECT name FROM events WHERE app_id = $1', [d.appId]);
        expect(events).toEqual([{ name: 'trial_start' }]);
      });

      test('400 without a transaction id or token, or with an unknown store; the same id in another app is another purchase', async () => {
        const d = await device({ platform: 'ios' });
        const noKey = await d.call('subscription', { device_id: d.deviceId, store: 'apple', product_id: 'p' });
        expect(noKey.status).toBe(400);
        expect((await body(noKey)).error.formErrors).toEqual(['original_transaction_id or purchase_token is required']);
        expect((await d.call('subscription', { device_id: d.deviceId, store: 'amazon', product_id: 'p', purchase_token: 't' })).status).toBe(400);
        const other = await device({ platform: 'ios' });
        const shared = { store: 'apple', original_transaction_id: `shared-${crypto.randomUUID()}`, product_id: 'p' };
        expect((await body(await d.call('subscription', { device_id: d.deviceId, ...shared }))).created).toBe(true);
        expect((await body(await other.call('subscription', { device_id: other.deviceId, ...shared }))).created).toBe(true);
      });
    });

    describe('POST /api/sdk/v1/ad-revenue', () => {
      test('stored as ad_revenue events with the network details; currency defaults to USD', async () => {
        const d = await device();
        const res = await d.call('ad-revenue', {
          device_id: d.deviceId,
          events: [
            { network: 'admob', ad_unit: 'ca-app-pub-1/2', format: 'rewarded', revenue: 0.0125, currency: 'EUR', precision: 'publisher_defined' },
            { network: 'applovin', revenue: 0.004 },
          ],
        });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ accepted: 2, install_id: d.installId });
        const rows = await db.query('SELECT name, value, currency, params FROM events WHERE app_id = $1 ORDER BY value DESC', [d.appId]);
        expect(rows).toEqual([
          { name: 'ad_revenue', value: 0.0125, currency: 'EUR', params: { network: 'admob', ad_unit: 'ca-app-pub-1/2', format: 'rewarded', precision: 'publisher_defined' } },
          { name: 'ad_revenue', value: 0.004, currency: 'USD', params: { network: 'applovin' } },
        ]);
      });

      test('without an install: install_id null; 400 for negative revenue or a missing network', async () => {
        const d = await device({ installed: false });
        expect(await body(await d.call('ad-revenue', { device_id: d.deviceId, events: [{ network: 'x', revenue: 1 }] }))).toEqual({ accepted: 1, install_id: null });
        expect((await d.call('ad-revenue', { device_id: d.deviceId, events: [{ network: 'x', revenue: -1 }] })).status).toBe(400);
        expect((await d.call('ad-revenue', { device_id: d.deviceId, events: [{ revenue: 1 }] })).status).toBe(400);
      });
    });

    test('installs, events with purchase value, subscriptions and ad revenue reach the DuckDB mirror', async () => {
      const d = await device({ platform: 'ios' });
      await d.call('events', { device_id: d.deviceId, events: [{ name: 'purchase', value: 5, currency: 'USD' }] });
      await d.call('ad-revenue', { device_id: d.deviceId, events: [{ network: 'admob', revenue: 0.5 }] });
      await d.call('subscription', { device_id: d.deviceId, store: 'apple', original_transaction_id: `m-${crypto.randomUUID()}`, product_id: 'p', price_micros: 1_000_000, currency: 'USD' });
      const events = await mirrored<{ name: string; value: number }>(t, 'SELECT name, value FROM events WHERE app_id = $1 ORDER BY name', [d.appId], (rows) => rows.length === 3);
      expect(events).toEqual([
        { name: 'ad_revenue', value: 0.5 },
        { name: 'purchase', value: 5 },
        { name: 'subscribe', value: 1 },
      ]);
      const installs = await mirrored(t, 'SELECT id FROM installs WHERE id = $1', [d.installId], (rows) => rows.length === 1);
      expect(installs).toEqual([{ id: d.installId }]);
      const subscriptions = await mirrored(t, 'SELECT install_id FROM subscriptions WHERE app_id = $1', [d.appId], (rows) => rows.length === 1);
      expect(subscriptions).toEqual([{ install_id: d.installId }]);
    });
  });
}
