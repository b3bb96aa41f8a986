import { describe, expect, test } from 'bun:test';
import { newId } from '../../src/shared/ids';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { installIdOf, sdkCall } from '../sdk/support';
import { postGoogle, pubsubEnv, pubsubPush, subscriptionNotification } from './support';

/** A month ago: Google's event times are never taken to be later than now. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 30 * 24 * 3_600_000;

for (const backend of backends()) {
  describe(`GET /api/v1/subscriptions on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, pubsubEnv, { mirror: false, workers: false });
    const list = (auth: Record<string, string>, query = '') => t.request(`/api/v1/subscriptions${query}`, { headers: auth });

    async function orgWithSubscriptions() {
      const org = await orgWithKey(db);
      const ios = await sdkApp(db, org.orgId, { platform: 'ios' });
      const android = await sdkApp(db, org.orgId, { platform: 'android' });
      const packageName = `com.test.${newId().toLowerCase()}`;
      await db.query('UPDATE apps SET bundle_id = $2 WHERE id = $1', [android.appId, packageName]);
      const deviceId = hashedDeviceId();
      const installId = await installIdOf(sdkCall(t, ios.sdkKey), deviceId, 'ios');
      const apple = await body(
        await sdkCall(t, ios.sdkKey)('subscription', { device_id: deviceId, store: 'apple', original_transaction_id: `otx-${newId()}`, product_id: 'pro.monthly', expires_at: '2027-01-01T00:00:00Z' }),
      );
      const token = `tok-${newId()}`;
      const google = await body(await postGoogle(t, pubsubPush(subscriptionNotification({ packageName, type: 13, token, at: T0 }))));
      return { ...org, installId, token, appleId: apple.subscription_id as string, googleId: google.subscription_id as string };
    }

    test('the organization\'s subscriptions, most recently updated first, in the documented shape', async () => {
      const org = await orgWithSubscriptions();
      const res = await list(org.auth);
      expect(res.status).toBe(200);
      const { data } = await body(res);
      expect(data).toHaveLength(2);
      expect(data[0]).toEqual({
        id: org.googleId,
        store: 'google',
        product_id: 'pro.monthly',
        original_transaction_id: null,
        purchase_token: org.token,
        state: 'expired',
        install_id: null,
        expires_at: null,
        updated_at: expect.any(String),
      });
      expect(data[1]).toMatchObject({ id: org.appleId, store: 'apple', state: 'active', purchase_token: null, install_id: org.installId, expires_at: '2027-01-01T00:00:00.000Z' });
      expect(Object.keys(data[1]).sort()).toEqual(['expires_at', 'id', 'install_id', 'original_transaction_id', 'product_id', 'purchase_token', 'state', 'store', 'updated_at']);
      expect(Date.parse(data[0].updated_at)).toBeGreaterThanOrEqual(Date.parse(data[1].updated_at));
      expect((await body(await list(org.auth, '?limit=1'))).data.map((s: { id: string }) => s.id)).toEqual([org.googleId]);
    });

    test('400 for a limit outside 1 to 1000', async () => {
      const org = await orgWithKey(db);
      for (const limit of ['0', '1001', 'ten']) {
        const res = await list(org.auth, `?limit=${limit}`);
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors).toHaveProperty('limit');
      }
    });

    test('security: 401 without a valid key; another organization\'s subscriptions never show', async () => {
      const mine = await orgWithSubscriptions();
      const theirs = await orgWithSubscriptions();
      expect((await list({})).status).toBe(401);
      expect((await list({ authorization: `Bearer svc_live_${'x'.repeat(32)}` })).status).toBe(401);
      const ids = (await body(await list(mine.auth))).data.map((s: { id: string }) => s.id);
      expect(ids.sort()).toEqual([mine.appleId, mine.googleId].sort());
      expect(ids).not.toContain(theirs.appleId);
      expect(ids).not.toContain(theirs.googleId);
    });
  });
}
