import { describe, expect, test } from 'bun:test';
import { newId } from '../../src/shared/ids';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { installIdOf, sdkCall } from '../sdk/support';
import { appleNotification, postApple, storedCounts, subscriptionEvents, subscriptionRow, testAppleCa } from './support';

const ca = testAppleCa('Store');
const T0 = Date.UTC(2026, 5, 1);
const HOUR = 3_600_000;

for (const backend of backends()) {
  describe(`POST /api/subscriptions/apple on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { APPLE_ROOT_CERTS: ca.rootPath }, { mirror: false, workers: false });

    /** An iOS app with its own bundle id, in a new organization unless one is given. */
    async function iosApp(input: { orgId?: string; bundleId?: string; platform?: string } = {}) {
      const orgId = input.orgId ?? (await orgWithKey(db)).orgId;
      const app = await sdkApp(db, orgId, { platform: input.platform ?? 'ios' });
      const bundleId = input.bundleId ?? `com.test.${newId().toLowerCase()}`;
      await db.query('UPDATE apps SET bundle_id = $2 WHERE id = $1', [app.appId, bundleId]);
      return { ...app, orgId, bundleId, call: sdkCall(t, app.sdkKey) };
    }

    const notify = async (input: Parameters<typeof appleNotification>[1]) => postApple(t, await appleNotification(ca, input));

    test('a notification for a purchase the SDK reported updates that subscription on its install, once', async () => {
      const app = await iosApp();
      const deviceId = hashedDeviceId();
      const installId = await installIdOf(app.call, deviceId, 'ios');
      const sdk = await body(await app.call('subscription', { device_id: deviceId, store: 'apple', original_transaction_id: '2000001', product_id: 'pro.monthly', price_micros: 4_990_000, currency: 'USD' }));
      const expiresDate = T0 + 30 * 24 * HOUR;
      const res = await notify({ type: 'SUBSCRIBED', subtype: 'INITIAL_BUY', signedDate: T0, bundleId: app.bundleId, transaction: { originalTransactionId: '2000001', bundleId: app.bundleId, price: 4990, expiresDate } });
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({ ok: true, subscription_id: sdk.subscription_id });
      expect(await subscriptionRow(t, sdk.subscription_id)).toMatchObject({ status: 'active', install_id: installId, expires_at: new Date(expiresDate), environment: 'sandbox' });
      // The SDK call recorded the start; the notification adds none.
      expect((await subscriptionEvents(t, sdk.subscription_id)).map((e) => e.name)).toEqual(['subscribe']);
      const renewal = await notify({ type: 'DID_RENEW', signedDate: T0 + HOUR, bundleId: app.bundleId, environment: 'Production', appAppleId: 1234, transaction: { originalTransactionId: '2000001', bundleId: app.bundleId, price: 4990 } });
      expect(await body(renewal)).toEqual({ ok: true, subscription_id: sdk.subscription_id });
      const events = await subscriptionEvents(t, sdk.subscription_id);
      expect(events[1]).toMatchObject({ name: 'subscription_renewed', value: 4.99, currency: 'USD', install_id: installId });
      expect(events[1]!.params).toMatchObject({ store: 'apple', product_id: 'pro.monthly', notification: 'DID_RENEW', from_state: 'active', to_state: 'active' });
    });

    test('an unknown purchase is created unlinked; the SDK call links it and the events recorded so far', async () => {
      const app = await iosApp();
      const res = await notify({ type: 'SUBSCRIBED', subtype: 'INITIAL_BUY', signedDate: T0, bundleId: app.bundleId, environment: 'Production', appAppleId: 99, transaction: { originalTransactionId: '3000001', bundleId: app.bundleId, price: 9990, currency: 'eur' } });
      const { subscription_id } = await body(res);
      expect(await subscriptionRow(t, subscription_id)).toMatchObject({ status: 'active', install_id: null, product_id: 'pro.monthly', environment: 'production', price_micros: 9_990_000, currency: 'EUR' });
      expect(await subscriptionEvents(t, subscription_id)).toMatchObject([{ name: 'subscribe', value: 9.99, currency: 'EUR', install_id: null }]);
      const deviceId = hashedDeviceId();
      const installId = await installIdOf(app.call, deviceId, 'ios');
      const linked = await body(await app.call('subscription', { device_id: deviceId, store: 'apple', original_transaction_id: '3000001', product_id: 'pro.monthly' }));
      expect(linked).toEqual({ subscription_id, install_id: installId, linked: true, created: false });
      expect(await subscriptionEvents(t, subscription_id)).toMatchObject([{ name: 'subscribe', value: 9.99, install_id: installId }]);
    });

    test('every notification type makes its documented transition and event; the values add up to the revenue', async () => {
      const app = await iosApp();
      const steps: [string, string | undefined, Record<string, unknown>, string, string | null, number | null][] = [
        ['SUBSCRIBED', 'INITIAL_BUY', { offerDiscountType: 'FREE_TRIAL', price: 0 }, 'trial', 'trial_start', null],
        ['DID_RENEW', undefined, {}, 'active', 'subscription_converted', 4.99],
        ['DID_RENEW', undefined, {}, 'active', 'subscription_renewed', 4.99],
        ['DID_CHANGE_RENEWAL_STATUS', 'AUTO_RENEW_DISABLED', {}, 'cancelled', 'subscription_cancelled', null],
        ['DID_CHANGE_RENEWAL_STATUS', 'AUTO_RENEW_ENABLED', {}, 'active', 'subscription_reactivated', null],
        ['DID_FAIL_TO_RENEW', 'GRACE_PERIOD', {}, 'grace_period', 'subscription_grace_period', null],
        ['GRACE_PERIOD_EXPIRED', undefined, {}, 'billing_retry', 'subscription_billing_retry', null],
        ['DID_RENEW', 'BILLING_RECOVERY', {}, 'active', 'subscription_recovered', 4.99],
        ['DID_FAIL_TO_RENEW', undefined, {}, 'billing_retry', 'subscription_billing_retry', null],
        ['EXPIRED', 'BILLING_RETRY', {}, 'expired', 'subscription_expired', null],
        ['SUBSCRIBED', 'RESUBSCRIBE', {}, 'active', 'subscribe', 4.99],
        ['REFUND', undefined, { revocationPercentage: 50_000 }, 'refunded', 'subscription_refunded', -2.495],
        ['REFUND_REVERSED', undefined, {}, 'active', 'subscription_refund_reversed', 4.99],
        ['REVOKE', undefined, {}, 'revoked', 'subscription_revoked', null],
        ['RENEWAL_EXTENDED', undefined, { expiresDate: T0 + 90 * 24 * HOUR }, 'revoked', null, null],
        ['PRICE_INCREASE', 'PENDING', {}, 'revoked', null, null],
        ['DID_CHANGE_RENEWAL_PREF', 'DOWNGRADE', {}, 'revoked', null, null],
      ];
      let subscriptionId: string | undefined;
      let step = 0;
      for (const [type, subtype, transaction, state, event, value] of steps) {
        step += 1;
        const before = subscriptionId ? (await subscriptionEvents(t, subscriptionId)).length : 0;
        const res = await notify({ type, subtype, signedDate: T0 + step * HOUR, bundleId: app.bundleId, environment: 'Production', appAppleId: 7, transaction: { originalTransactionId: '4000001', bundleId: app.bundleId, price: 4990, ...transaction } });
        expect(res.status).toBe(200);
        subscriptionId ??= (await body(res)).subscription_id;
        const row = await subscriptionRow(t, subscriptionId!);
        expect([type, subtype, row!.status]).toEqual([type, subtype, state]);
        const events = await subscriptionEvents(t, subscriptionId!);
        expect([type, subtype, events.length - before]).toEqual([type, subtype, event ? 1 : 0]);
        if (event) expect([type, events.at(-1)!.name, events.at(-1)!.value]).toEqual([type, event, value]);
      }
      expect((await subscriptionRow(t, subscriptionId!))!.expires_at).toEqual(new Date(T0 + 90 * 24 * HOUR));
      const [totals] = await db.query<{ revenue: number }>(`SELECT sum(value)::float8 AS revenue FROM events WHERE params->>'subscription_id' = $1`, [subscriptionId]);
      expect(totals!.revenue).toBeCloseTo(4.99 * 5 - 2.495, 6);
      const outcomes = await db.query<{ type: string; outcome: string }>('SELECT type, outcome FROM store_notifications WHERE subscription_id = $1 AND outcome = $2 ORDER BY signed_at', [subscriptionId, 'ignored']);
      expect(outcomes.map((o) => o.type)).toEqual(['PRICE_INCREASE', 'DID_CHANGE_RENEWAL_PREF']);
    });

    test('a replayed notification answers the same and stores nothing new', async () => {
      const app = await iosApp();
      const payload = await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, transaction: { originalTransactionId: '5000001', bundleId: app.bundleId, price: 1990 } });
      const first = await body(await postApple(t, payload));
      const counts = await storedCounts(t);
      for (let i = 0; i < 3; i++) {
        const again = await postApple(t, payload);
        expect(again.status).toBe(200);
        expect(await body(again)).toEqual(first);
      }
      expect(await storedCounts(t)).toEqual(counts);
      // The same notification id signed anew (Apple's own retry) is a replay too.
      const resent = await appleNotification(ca, { type: 'DID_RENEW', uuid: undefined, signedDate: T0, bundleId: app.bundleId, transaction: { originalTransactionId: '5000001', bundleId: app.bundleId } });
      expect((await body(await postApple(t, resent))).subscription_id).toBe(first.subscription_id);
    });

    test('concurrent deliveries: one duplicate wins, and two notifications for a new purchase make one subscription', async () => {
      const app = await iosApp();
      const production = { bundleId: app.bundleId, environment: 'Production', appAppleId: 5 };
      const payload = await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, ...production, transaction: { originalTransactionId: '5000002', bundleId: app.bundleId, price: 990 } });
      const answers = await Promise.all(Array.from({ length: 5 }, async () => body(await postApple(t, payload))));
      expect(new Set(answers.map((a) => a.subscription_id)).size).toBe(1);
      expect((await subscriptionEvents(t, answers[0].subscription_id)).map((e) => e.name)).toEqual(['subscription_renewed']);
      const pair = await Promise.all(
        [T0, T0 + HOUR].map(async (signedDate) =>
          body(await notify({ type: 'DID_RENEW', signedDate, ...production, transaction: { originalTransactionId: '5000003', bundleId: app.bundleId, price: 990 } })),
        ),
      );
      expect(pair[0].subscription_id).toBe(pair[1].subscription_id);
      const [count] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM subscriptions WHERE original_transaction_id = '5000003'");
      expect(count!.n).toBe(1);
      expect((await subscriptionEvents(t, pair[0].subscription_id)).map((e) => e.value)).toEqual([0.99, 0.99]);
    });

    test('out of order: an older notification never moves the state back, but its payment still counts', async () => {
      const app = await iosApp();
      const tx = { originalTransactionId: '6000001', bundleId: app.bundleId, price: 2990 };
      const production = { bundleId: app.bundleId, environment: 'Production', appAppleId: 6, transaction: tx };
      const { subscription_id } = await body(await notify({ type: 'EXPIRED', subtype: 'VOLUNTARY', signedDate: T0 + 2 * HOUR, ...production }));
      await notify({ type: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_ENABLED', signedDate: T0 + HOUR, ...production });
      await notify({ type: 'DID_RENEW', signedDate: T0, ...production });
      expect((await subscriptionRow(t, subscription_id))!.status).toBe('expired');
      const events = await subscriptionEvents(t, subscription_id);
      expect(events.map((e) => [e.name, e.value, e.params.late ?? false])).toEqual([
        ['subscription_expired', null, false],
        ['subscription_renewed', 2.99, true],
      ]);
      const outcomes = await db.query<{ outcome: string }>('SELECT outcome FROM store_notifications WHERE subscription_id = $1 ORDER BY signed_at', [subscription_id]);
      expect(outcomes.map((o) => o.outcome)).toEqual(['stale', 'stale', 'applied']);
    });

    test('sandbox purchases move the state but count no money; a test notification and a consumable refund are recorded only', async () => {
      const app = await iosApp();
      const { subscription_id } = await body(await notify({ type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, environment: 'Sandbox', transaction: { originalTransactionId: '7000001', bundleId: app.bundleId, price: 4990 } }));
      expect(await subscriptionEvents(t, subscription_id)).toMatchObject([{ name: 'subscription_renewed', value: null, currency: null, params: { sandbox: true } }]);
      const before = await storedCounts(t);
      expect(await body(await notify({ type: 'TEST', signedDate: T0, bundleId: app.bundleId }))).toEqual({ ok: true, subscription_id: null });
      const consumable = await notify({ type: 'REFUND', signedDate: T0, bundleId: app.bundleId, transaction: { originalTransactionId: '7000002', bundleId: app.bundleId, type: 'Consumable', price: 990 } });
      expect(await body(consumable)).toEqual({ ok: true, subscription_id: null });
      expect(await storedCounts(t)).toEqual({ ...before, notifications: before.notifications + 2 });
    });

    describe('refusals: 400 {"error":"invalid signed payload"} and nothing stored', () => {
      test('not a JWS, a tampered payload, a forged signature', async () => {
        const app = await iosApp();
        const genuine = await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, transaction: { originalTransactionId: '8000001', bundleId: app.bundleId } });
        const [header, , signature] = genuine.split('.');
        const claims = { notificationType: 'REFUND', notificationUUID: crypto.randomUUID(), signedDate: T0, data: { bundleId: app.bundleId, environment: 'Sandbox' } };
        const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
        const before = await storedCounts(t);
        for (const payload of ['not-a-jws', 'a.b.c', tampered, `${genuine.slice(0, -4)}AAAA`, `${header}.${genuine.split('.')[1]}.`]) {
          const res = await postApple(t, payload);
          expect(res.status).toBe(400);
          expect(await body(res)).toEqual({ error: 'invalid signed payload' });
        }
        expect(await storedCounts(t)).toEqual(before);
      });

      test('a chain to an untrusted root (the Apple root trusted beside), or one without the App Store OIDs under a trusted root', async () => {
        const app = await iosApp();
        const strangers = [testAppleCa('Stranger'), testAppleCa('NoOids', { withOids: false })];
        const untrustedUnderOids = await testApp(db, { APPLE_ROOT_CERTS: strangers[1]!.rootPath }, { mirror: false, workers: false });
        const before = await storedCounts(t);
        for (const stranger of strangers) {
          const payload = await appleNotification(stranger, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, transaction: { originalTransactionId: '8000002', bundleId: app.bundleId } });
          expect(await body(await postApple(t, payload))).toEqual({ error: 'invalid signed payload' });
        }
        // Trusting the root is not enough: the intermediate and leaf must carry Apple's extensions.
        const noOids = await appleNotification(strangers[1]!, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, transaction: { originalTransactionId: '8000002', bundleId: app.bundleId } });
        expect((await postApple(untrustedUnderOids, noOids)).status).toBe(400);
        expect(await storedCounts(t)).toEqual(before);
      });

      test('an unknown bundle id, an Android app\'s package, Xcode or unsigned environments, a transaction of another bundle or signer', async () => {
        const app = await iosApp();
        const android = await iosApp({ platform: 'android' });
        const tx = (bundleId: string) => ({ originalTransactionId: '8000003', bundleId });
        const forger = testAppleCa('Forger');
        const before = await storedCounts(t);
        const refused = [
          await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: 'com.nobody.here', transaction: tx('com.nobody.here') }),
          await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: android.bundleId, transaction: tx(android.bundleId) }),
          await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, environment: 'Xcode', transaction: tx(app.bundleId) }),
          await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, environment: 'LocalTesting', transaction: tx(app.bundleId) }),
          // Production names the app by its Apple id as well; one without it is not Apple's.
          await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, environment: 'Production', transaction: tx(app.bundleId) }),
          await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, transaction: tx('com.someone.else') }),
          // A genuine notification around a transaction someone else signed.
          await appleNotification(ca, { type: 'DID_RENEW', signedDate: T0, bundleId: app.bundleId, transaction: await forger.sign({ ...tx(app.bundleId), environment: 'Sandbox', signedDate: T0 }) }),
        ];
        for (const payload of refused) {
          const res = await postApple(t, payload);
          expect(res.status).toBe(400);
          expect(await body(res)).toEqual({ error: 'invalid signed payload' });
        }
        expect(await storedCounts(t)).toEqual(before);
      });

      test('a malformed body answers the validation shape; other methods 405; every answer has the security headers', async () => {
        for (const json of [{}, { signedPayload: '' }, { signedPayload: 12 }]) {
          const res = await postApple(t, (json as { signedPayload?: unknown }).signedPayload);
          expect(res.status).toBe(400);
          expectSecurityHeaders(res);
          expect((await body(res)).error.fieldErrors).toHaveProperty('signedPayload');
        }
        for (const path of ['/api/subscriptions/apple', '/api/subscriptions/google']) {
          const res = await t.request(path);
          expect([path, res.status, res.headers.get('allow')]).toEqual([path, 405, 'POST']);
          expectSecurityHeaders(res);
        }
      });
    });

    describe('security: organizations', () => {
      test("a bundle id two organizations claim goes to the one holding the purchase, and to nobody else's", async () => {
        const bundleId = `com.shared.${newId().toLowerCase()}`;
        const mine = await iosApp({ bundleId });
        const theirs = await iosApp({ bundleId });
        const tx = { originalTransactionId: '9000001', bundleId };
        const before = await storedCounts(t);
        const ambiguous = await notify({ type: 'DID_RENEW', signedDate: T0, bundleId, transaction: tx });
        expect(ambiguous.status).toBe(409);
        expect(await storedCounts(t)).toEqual(before);
        const sdk = await body(await mine.call('subscription', { device_id: hashedDeviceId(), store: 'apple', original_transaction_id: '9000001', product_id: 'pro.monthly' }));
        const res = await notify({ type: 'DID_RENEW', signedDate: T0 + HOUR, bundleId, transaction: tx });
        expect(await body(res)).toEqual({ ok: true, subscription_id: sdk.subscription_id });
        const [count] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1', [theirs.appId]);
        expect(count!.n).toBe(0);
        const [notification] = await db.query<{ org_id: string }>('SELECT org_id FROM store_notifications WHERE subscription_id = $1', [sdk.subscription_id]);
        expect(notification!.org_id).toBe(mine.orgId);
      });
    });
  });
}
