import { afterAll, describe, expect, test } from 'bun:test';
import { newId } from '../../src/shared/ids';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { installIdOf, mirrored, sdkCall } from '../sdk/support';
import { fakeGoogle, postGoogle, PUSH_TOKEN, pubsubEnv, pubsubPush, storedCounts, subscriptionEvents, subscriptionNotification, subscriptionRow } from './support';

const google = fakeGoogle();
afterAll(() => google.stop());

/** A month ago: Google's event times are never taken to be later than now. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 30 * 24 * 3_600_000;
const HOUR = 3_600_000;
const AUDIENCE = 'https://api.test.local/api/subscriptions/google';
const PUSHER = 'pubsub-push@project.iam.gserviceaccount.com';

for (const backend of backends()) {
  describe(`POST /api/subscriptions/google on ${backend.name}`, async () => {
    const db = await backend.create();
    const options = { mirror: false, workers: false } as const;
    const t = await testApp(db, pubsubEnv, options);
    const withPlay = await testApp(db, { ...pubsubEnv, GOOGLE_PLAY_CREDENTIALS: google.credentialsPath, GOOGLE_PLAY_API_URL: google.url }, options);
    const unconfigured = await testApp(db, {}, options);
    const unchecked = await testApp(db, { GOOGLE_PUBSUB_AUTH: 'off' }, options);
    const withOidc = await testApp(db, { GOOGLE_PUBSUB_AUDIENCE: AUDIENCE, GOOGLE_PUBSUB_EMAIL: PUSHER, GOOGLE_PUBSUB_JWKS_URL: `${google.url}/certs` }, options);

    async function androidApp(input: { orgId?: string; packageName?: string; platform?: string } = {}) {
      const orgId = input.orgId ?? (await orgWithKey(db)).orgId;
      const app = await sdkApp(db, orgId, { platform: input.platform ?? 'android' });
      const packageName = input.packageName ?? `com.test.${newId().toLowerCase()}`;
      await db.query('UPDATE apps SET bundle_id = $2 WHERE id = $1', [app.appId, packageName]);
      return { ...app, orgId, packageName, call: sdkCall(t, app.sdkKey) };
    }

    const owner = async (subscriptionId: string) => (await db.query<{ org_id: string; app_id: string }>('SELECT org_id, app_id FROM subscriptions WHERE id = $1', [subscriptionId]))[0];
    const push = (app: { packageName: string }, type: number, token: string, at: number, messageId?: string) =>
      pubsubPush(subscriptionNotification({ packageName: app.packageName, type, token, at }), messageId);

    test('a notification for a purchase the SDK reported moves that subscription; its renewal is worth the SDK price', async () => {
      const app = await androidApp();
      const deviceId = hashedDeviceId();
      const installId = await installIdOf(app.call, deviceId, 'android');
      const token = `tok-${newId()}`;
      const sdk = await body(await app.call('subscription', { device_id: deviceId, store: 'google', purchase_token: token, product_id: 'pro.monthly', is_trial: true, price_micros: 2_490_000, currency: 'EUR' }));
      expect(await subscriptionRow(t, sdk.subscription_id)).toMatchObject({ status: 'trial', is_trial: true });
      const purchased = await postGoogle(t, push(app, 4, token, T0));
      expect(purchased.status).toBe(200);
      expect(await body(purchased)).toEqual({ ok: true, subscription_id: sdk.subscription_id });
      expect((await subscriptionRow(t, sdk.subscription_id))!.status).toBe('trial');
      await postGoogle(t, push(app, 2, token, T0 + HOUR));
      expect((await subscriptionRow(t, sdk.subscription_id))!.status).toBe('active');
      expect(await subscriptionEvents(t, sdk.subscription_id)).toMatchObject([
        { name: 'trial_start', value: null, install_id: installId },
        { name: 'subscription_converted', value: 2.49, currency: 'EUR', install_id: installId, params: { store: 'google', notification: 'SUBSCRIPTION_RENEWED' } },
      ]);
    });

    test('every notification type makes its documented transition and event', async () => {
      const app = await androidApp();
      const token = `tok-${newId()}`;
      await app.call('subscription', { device_id: hashedDeviceId(), store: 'google', purchase_token: token, product_id: 'pro.monthly', price_micros: 4_990_000, currency: 'USD' });
      const steps: [number | 'voided', string, string | null, number | null][] = [
        [4, 'active', null, null],
        [2, 'active', 'subscription_renewed', 4.99],
        [3, 'cancelled', 'subscription_cancelled', null],
        [7, 'active', 'subscription_reactivated', null],
        [6, 'grace_period', 'subscription_grace_period', null],
        [5, 'billing_retry', 'subscription_billing_retry', null],
        [1, 'active', 'subscription_recovered', 4.99],
        [10, 'paused', 'subscription_paused', null],
        [2, 'active', 'subscription_renewed', 4.99],
        [9, 'active', null, null],
        [8, 'active', null, null],
        [11, 'active', null, null],
        [17, 'active', null, null],
        [18, 'active', null, null],
        [19, 'active', null, null],
        [20, 'active', null, null],
        [22, 'active', null, null],
        [99, 'active', null, null],
        ['voided', 'refunded', 'subscription_refunded', -4.99],
        [13, 'expired', 'subscription_expired', null],
        [12, 'revoked', 'subscription_revoked', null],
      ];
      let id = '';
      let at = T0;
      for (const [type, state, event, value] of steps) {
        at += HOUR;
        const notification =
          type === 'voided'
            ? { packageName: app.packageName, eventTimeMillis: String(at), voidedPurchaseNotification: { purchaseToken: token, orderId: 'GPA.1234', productType: 1, refundType: 1 } }
            : subscriptionNotification({ packageName: app.packageName, type, token, at });
        const before = id ? (await subscriptionEvents(t, id)).length : 1;
        const res = await postGoogle(t, pubsubPush(notification));
        expect(res.status).toBe(200);
        id ||= (await body(res)).subscription_id;
        expect([type, (await subscriptionRow(t, id))!.status]).toEqual([type, state]);
        const events = await subscriptionEvents(t, id);
        expect([type, events.length - before]).toEqual([type, event ? 1 : 0]);
        if (event) expect([type, events.at(-1)!.name, events.at(-1)!.value]).toEqual([type, event, value]);
      }
      const refund = (await subscriptionEvents(t, id)).find((e) => e.name === 'subscription_refunded');
      expect(refund!.params).toMatchObject({ order_id: 'GPA.1234', notification: 'VOIDED_PURCHASE' });
      const types = await db.query<{ type: string }>("SELECT type FROM store_notifications WHERE subscription_id = $1 AND outcome = 'ignored' ORDER BY signed_at", [id]);
      expect(types.map((row) => row.type)).toEqual([
        'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED',
        'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED',
        'SUBSCRIPTION_ITEMS_CHANGED',
        'SUBSCRIPTION_CANCELLATION_SCHEDULED',
        'SUBSCRIPTION_PRICE_CHANGE_UPDATED',
        'SUBSCRIPTION_PENDING_PURCHASE_CANCELED',
        'SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED',
        'SUBSCRIPTION_NOTIFICATION_99',
      ]);
    });

    test('an unknown purchase token makes an unlinked subscription; the SDK call links it and its events', async () => {
      const app = await androidApp();
      const token = `tok-${newId()}`;
      const { subscription_id } = await body(await postGoogle(t, push(app, 4, token, T0)));
      expect(await subscriptionRow(t, subscription_id)).toMatchObject({ status: 'active', install_id: null, product_id: 'pro.monthly' });
      expect(await subscriptionEvents(t, subscription_id)).toMatchObject([{ name: 'subscribe', value: null, install_id: null }]);
      const deviceId = hashedDeviceId();
      const installId = await installIdOf(app.call, deviceId, 'android');
      const linked = await body(await app.call('subscription', { device_id: deviceId, store: 'google', purchase_token: token, product_id: 'pro.monthly' }));
      expect(linked).toEqual({ subscription_id, install_id: installId, linked: true, created: false });
      expect((await subscriptionEvents(t, subscription_id))[0]!.install_id).toBe(installId);
    });

    test('the events reach the DuckDB mirror, where revenue is summed (a refund subtracts)', async () => {
      const analytics = await testApp(db, pubsubEnv, { workers: false });
      const app = await androidApp();
      const token = `tok-${newId()}`;
      await app.call('subscription', { device_id: hashedDeviceId(), store: 'google', purchase_token: token, product_id: 'pro.monthly', price_micros: 3_000_000, currency: 'USD' });
      await postGoogle(analytics, push(app, 2, token, T0));
      await postGoogle(analytics, push(app, 2, token, T0 + HOUR));
      const voided = { packageName: app.packageName, eventTimeMillis: String(T0 + 2 * HOUR), voidedPurchaseNotification: { purchaseToken: token, productType: 1 } };
      await postGoogle(analytics, pubsubPush(voided));
      const rows = await mirrored<{ revenue: number; n: number }>(
        analytics,
        "SELECT sum(value)::DOUBLE AS revenue, count(*)::INTEGER AS n FROM events WHERE app_id = $1 AND name LIKE 'subscri%'",
        [app.appId],
        (found) => found[0]?.n === 4,
      );
      expect(rows[0]!.revenue).toBeCloseTo(3 + 3 + 3 - 3, 6);
    });

    test('a test notification answers 200 and stores nothing; a replayed message answers the same and stores nothing new', async () => {
      const app = await androidApp();
      const before = await storedCounts(t);
      const testPush = pubsubPush({ version: '1.0', packageName: app.packageName, eventTimeMillis: String(T0), testNotification: { version: '1.0' } });
      expect(await body(await postGoogle(t, testPush))).toEqual({ ok: true, subscription_id: null });
      expect(await storedCounts(t)).toEqual(before);
      const message = push(app, 2, `tok-${newId()}`, T0);
      const first = await body(await postGoogle(t, message));
      const after = await storedCounts(t);
      for (let i = 0; i < 3; i++) expect(await body(await postGoogle(t, message))).toEqual(first);
      expect(await storedCounts(t)).toEqual(after);
    });

    test('out of order: an older notification never moves the state back', async () => {
      const app = await androidApp();
      const token = `tok-${newId()}`;
      const { subscription_id } = await body(await postGoogle(t, push(app, 13, token, T0 + 2 * HOUR)));
      await postGoogle(t, push(app, 7, token, T0 + HOUR));
      await postGoogle(t, push(app, 6, token, T0));
      expect((await subscriptionRow(t, subscription_id))!.status).toBe('expired');
      const outcomes = await db.query<{ outcome: string }>('SELECT outcome FROM store_notifications WHERE subscription_id = $1 ORDER BY signed_at', [subscription_id]);
      expect(outcomes.map((o) => o.outcome)).toEqual(['stale', 'stale', 'applied']);
    });

    test('an event time in the future counts as now, so it cannot freeze the subscription', async () => {
      const app = await androidApp();
      const token = `tok-${newId()}`;
      const { subscription_id } = await body(await postGoogle(t, push(app, 10, token, Date.now() + 365 * 24 * HOUR)));
      const [notification] = await db.query<{ signed_at: Date }>('SELECT signed_at FROM store_notifications WHERE subscription_id = $1', [subscription_id]);
      expect(notification!.signed_at.getTime()).toBeLessThanOrEqual(Date.now());
      await Bun.sleep(5);
      await postGoogle(t, push(app, 2, token, Date.now()));
      expect((await subscriptionRow(t, subscription_id))!.status).toBe('active');
    });

    describe('with Google Play credentials', () => {
      const play = (state: string, extra: Record<string, unknown> = {}) => ({
        subscriptionState: state,
        lineItems: [{ productId: 'pro.yearly', expiryTime: '2027-06-01T00:00:00.000Z', autoRenewingPlan: { autoRenewEnabled: true, recurringPrice: { currencyCode: 'EUR', units: '5', nanos: 990_000_000 } } }],
        ...extra,
      });

      test("the Play API's state, price, product and expiry win over the notification type", async () => {
        const app = await androidApp();
        const token = `tok-${newId()}/+=`;
        google.purchases.set(token, play('SUBSCRIPTION_STATE_IN_GRACE_PERIOD'));
        const calls = google.calls.length;
        const { subscription_id } = await body(await postGoogle(withPlay, push(app, 2, token, T0)));
        expect(await subscriptionRow(t, subscription_id)).toMatchObject({ status: 'grace_period', product_id: 'pro.yearly', price_micros: 5_990_000, currency: 'EUR', expires_at: new Date('2027-06-01T00:00:00Z') });
        expect(await subscriptionEvents(t, subscription_id)).toMatchObject([{ name: 'subscription_renewed', value: 5.99, currency: 'EUR' }]);
        expect(google.calls.slice(calls)).toEqual([{ path: `/androidpublisher/v3/applications/${app.packageName}/purchases/subscriptionsv2/tokens/${encodeURIComponent(token)}`, authorized: true }]);
        // A free-trial phase reads as a trial; a refund stays a refund though the API says expired.
        google.purchases.set(token, play('SUBSCRIPTION_STATE_ACTIVE', { lineItems: [{ productId: 'pro.yearly', offerPhase: { freeTrial: {} } }] }));
        await postGoogle(withPlay, push(app, 7, token, T0 + HOUR));
        expect((await subscriptionRow(t, subscription_id))!.status).toBe('trial');
        google.purchases.set(token, play('SUBSCRIPTION_STATE_EXPIRED'));
        await postGoogle(withPlay, push(app, 12, token, T0 + 2 * HOUR));
        expect((await subscriptionRow(t, subscription_id))!.status).toBe('revoked');
      });

      test("a licence tester's purchase counts no money; a replay calls Google no more", async () => {
        const app = await androidApp();
        const token = `tok-${newId()}`;
        google.purchases.set(token, play('SUBSCRIPTION_STATE_ACTIVE', { testPurchase: {} }));
        const message = push(app, 4, token, T0);
        const { subscription_id } = await body(await postGoogle(withPlay, message));
        expect(await subscriptionRow(t, subscription_id)).toMatchObject({ status: 'active', environment: 'sandbox' });
        expect(await subscriptionEvents(t, subscription_id)).toMatchObject([{ name: 'subscribe', value: null, params: { sandbox: true } }]);
        const calls = google.calls.length;
        expect(await body(await postGoogle(withPlay, message))).toEqual({ ok: true, subscription_id });
        expect(google.calls.length).toBe(calls);
      });

      test('a token Google does not know answers 400, an outage 503; neither stores anything', async () => {
        const app = await androidApp();
        const before = await storedCounts(t);
        const unknown = await postGoogle(withPlay, push(app, 2, `forged-${newId()}`, T0));
        expect(unknown.status).toBe(400);
        expect(await body(unknown)).toEqual({ error: 'google play does not know this purchase token' });
        const token = `tok-${newId()}`;
        google.purchases.set(token, play('SUBSCRIPTION_STATE_ACTIVE'));
        google.failWith.status = 500;
        try {
          const outage = await postGoogle(withPlay, push(app, 2, token, T0));
          expect(outage.status).toBe(503);
          expect(await body(outage)).toEqual({ error: 'google play api unavailable' });
        } finally {
          google.failWith.status = 0;
        }
        expect(await storedCounts(t)).toEqual(before);
      });
    });

    describe('errors: 400 naming the field, nothing stored', () => {
      test('bad base64, bad JSON, missing or mistyped fields', async () => {
        const app = await androidApp();
        const encode = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
        const good = subscriptionNotification({ packageName: app.packageName, type: 2, token: 'tok', at: T0 });
        const withData = (data: string) => ({ message: { data, messageId: newId() }, subscription: 'projects/p/subscriptions/s' });
        const cases: [unknown, string][] = [
          [withData('%%%not base64%%%'), 'message.data'],
          [withData(encode('{"packageName": ')), 'message.data'],
          [withData(encode([1, 2])), 'message.data'],
          [withData(encode({ ...good, packageName: undefined })), 'message.data.packageName'],
          [withData(encode({ ...good, eventTimeMillis: 'yesterday' })), 'message.data.eventTimeMillis'],
          [withData(encode({ ...good, subscriptionNotification: { notificationType: 'renewed', purchaseToken: 'tok' } })), 'message.data.subscriptionNotification.notificationType'],
          [withData(encode({ ...good, subscriptionNotification: { notificationType: 2 } })), 'message.data.subscriptionNotification.purchaseToken'],
          [{ message: { data: encode(good) }, subscription: 's' }, 'message.messageId'],
          [{ message: { messageId: 'm' }, subscription: 's' }, 'message.data'],
          [{ message: { data: encode(good), messageId: 'm' } }, 'subscription'],
        ];
        const before = await storedCounts(t);
        for (const [json, field] of cases) {
          const res = await postGoogle(t, json);
          expect([field, res.status]).toEqual([field, 400]);
          expect([field, Object.keys((await body(res)).error.fieldErrors)]).toEqual([field, [field]]);
        }
        for (const [notification, field] of [
          [{ ...good, packageName: undefined }, 'message.data.packageName'],
          [{ ...good, subscriptionNotification: { notificationType: 2 } }, 'message.data.subscriptionNotification.purchaseToken'],
        ] as const) {
          expect((await body(await postGoogle(t, withData(encode(notification))))).error.fieldErrors).toEqual({ [field]: ['Expected required property'] });
        }
        expect(await storedCounts(t)).toEqual(before);
      });
    });

    describe('security', () => {
      test('neither GOOGLE_PUBSUB_TOKEN nor GOOGLE_PUBSUB_AUDIENCE: every push answers 401 and nothing is stored', async () => {
        const app = await androidApp();
        const before = await storedCounts(t);
        for (const query of ['', '?token=', `?token=${PUSH_TOKEN}`]) {
          const res = await postGoogle(unconfigured, push(app, 4, `tok-${newId()}`, T0), { query, headers: { authorization: 'Bearer anything' } });
          expect([query, res.status]).toEqual([query, 401]);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
        const testPush = pubsubPush({ version: '1.0', packageName: app.packageName, eventTimeMillis: String(T0), testNotification: { version: '1.0' } });
        expect((await postGoogle(unconfigured, testPush)).status).toBe(401);
        expect(await storedCounts(t)).toEqual(before);
      });

      test('GOOGLE_PUBSUB_AUTH=off: pushes are accepted without any check', async () => {
        const app = await androidApp();
        const res = await postGoogle(unchecked, push(app, 4, `tok-${newId()}`, T0), { query: '' });
        expect(res.status).toBe(200);
        const { subscription_id } = await body(res);
        expect(await subscriptionRow(t, subscription_id)).toMatchObject({ status: 'active' });
        expect(await owner(subscription_id)).toEqual({ org_id: app.orgId, app_id: app.appId });
      });

      test('GOOGLE_PUBSUB_TOKEN: the push URL must carry it; otherwise 401 and nothing stored', async () => {
        const app = await androidApp();
        const before = await storedCounts(t);
        for (const query of ['', '?token=', `?token=${PUSH_TOKEN}x`, `?token=${PUSH_TOKEN.slice(0, -1)}`, `?token=${PUSH_TOKEN.toUpperCase()}`]) {
          const res = await postGoogle(t, push(app, 2, 'tok', T0), { query });
          expect([query, res.status]).toEqual([query, 401]);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
        expect(await storedCounts(t)).toEqual(before);
        expect((await postGoogle(t, push(app, 2, 'tok', T0), { query: `?token=${PUSH_TOKEN}` })).status).toBe(200);
      });

      test("GOOGLE_PUBSUB_AUDIENCE: Google's OIDC token for this audience and account, or 401", async () => {
        const app = await androidApp();
        const claims = { iss: 'https://accounts.google.com', aud: AUDIENCE, email: PUSHER, email_verified: true, sub: '1' };
        const stranger = fakeGoogle();
        const refused = [
          undefined,
          'Bearer not-a-jwt',
          `Bearer ${await google.oidcToken({ ...claims, aud: 'https://elsewhere.example' })}`,
          `Bearer ${await google.oidcToken({ ...claims, iss: 'https://evil.example' })}`,
          `Bearer ${await google.oidcToken({ ...claims, email: 'someone@else.iam.gserviceaccount.com' })}`,
          `Bearer ${await google.oidcToken({ ...claims, email_verified: false })}`,
          `Bearer ${await stranger.oidcToken(claims)}`,
        ];
        stranger.stop();
        const before = await storedCounts(t);
        for (const authorization of refused) {
          const res = await postGoogle(withOidc, push(app, 2, 'tok', T0), { headers: authorization ? { authorization } : {} });
          expect([authorization, res.status]).toEqual([authorization, 401]);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
        expect(await storedCounts(t)).toEqual(before);
        const accepted = await postGoogle(withOidc, push(app, 2, 'tok', T0), { headers: { authorization: `Bearer ${await google.oidcToken(claims)}` } });
        expect(accepted.status).toBe(200);
      });

      test("a package name no Android app has, or an iOS app's bundle id: acknowledged with 200, nothing stored", async () => {
        const ios = await androidApp({ platform: 'ios' });
        const before = await storedCounts(t);
        for (const packageName of [`com.nobody.${newId().toLowerCase()}`, ios.packageName]) {
          const res = await postGoogle(t, push({ packageName }, 4, `tok-${newId()}`, T0));
          expect([packageName, res.status]).toEqual([packageName, 200]);
          expect(await body(res)).toEqual({ ok: true, subscription_id: null });
        }
        expect(await storedCounts(t)).toEqual(before);
      });

      test("each organization's package takes only its own notifications; neither sees the other's subscription", async () => {
        const orgs = [await orgWithKey(db), await orgWithKey(db)];
        const apps = [await androidApp({ orgId: orgs[0]!.orgId }), await androidApp({ orgId: orgs[1]!.orgId })];
        const ids: string[] = [];
        for (const app of apps) {
          const res = await postGoogle(t, push(app, 4, `tok-${newId()}`, T0));
          expect(res.status).toBe(200);
          ids.push((await body(res)).subscription_id);
        }
        for (const [i, id] of ids.entries()) {
          expect(await owner(id)).toEqual({ org_id: orgs[i]!.orgId, app_id: apps[i]!.appId });
          const listed = await body(await t.request('/api/v1/subscriptions', { headers: orgs[i]!.auth }));
          expect(listed.data.map((row: { id: string }) => row.id)).toEqual([id]);
        }
      });

      test("a package two organizations claim goes to the one holding the purchase token, and to nobody else's", async () => {
        const packageName = `com.shared.${newId().toLowerCase()}`;
        const mine = await androidApp({ packageName });
        const theirs = await androidApp({ packageName });
        const token = `tok-${newId()}`;
        const before = await storedCounts(t);
        expect((await postGoogle(t, push({ packageName }, 2, token, T0))).status).toBe(409);
        expect(await storedCounts(t)).toEqual(before);
        const sdk = await body(await theirs.call('subscription', { device_id: hashedDeviceId(), store: 'google', purchase_token: token, product_id: 'pro.monthly' }));
        expect(await body(await postGoogle(t, push({ packageName }, 2, token, T0 + HOUR)))).toEqual({ ok: true, subscription_id: sdk.subscription_id });
        const [count] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1', [mine.appId]);
        expect(count!.n).toBe(0);
      });
    });
  });
}
