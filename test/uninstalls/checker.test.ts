import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { loadConfig } from '../../src/config/config';
import { HOUR_MS, UNINSTALL_CHECK_LOCK } from '../../src/uninstalls/checker';
import { pushClientsFor } from '../../src/uninstalls/uninstalls.boot';
import { markUninstalled } from '../../src/uninstalls/uninstalls.repo';
import { body, testApp } from '../support/app';
import { orgWithKey } from '../support/fixtures';
import { backends } from '../support/db';
import { tempDir } from '../support/temp-dir';
import { eventually } from '../support/wait';
import {
  APNS_KEY_ID,
  APNS_TEAM_ID,
  apnsKey,
  apnsToken,
  deviceWithToken,
  fakeApns,
  fakeFcm,
  fakeOAuth,
  fcmError,
  fcmToken,
  installState,
  serviceAccount,
  TEST_CA_PATH,
  testChecker,
  testClock,
  uninstallEvents,
  type FakeAnswer,
} from './support';

const key = apnsKey();
const account = serviceAccount();
const answers = new Map<string, FakeAnswer>();
const answer = (token: string) => answers.get(token) ?? { status: 200 };
const apns = await fakeApns({ publicKey: key.publicKey }, answer);
const oauth = fakeOAuth(account);
const fcm = fakeFcm(oauth, answer);
const BOTH = {
  APNS_KEY_PATH: key.path,
  APNS_KEY_ID,
  APNS_TEAM_ID,
  APNS_URL: apns.url,
  APNS_CA_PATH: TEST_CA_PATH,
  FCM_CREDENTIALS: account.path,
  FCM_URL: fcm.url,
  GOOGLE_OAUTH_TOKEN_URL: oauth.url,
  TRUST_PROXY: '1',
};
const apnsTokensSent = () => apns.requests.map((r) => r.path.replace('/3/device/', ''));
const fcmTokensSent = () => fcm.requests.map((r) => JSON.parse(r.body).message.token as string);

describe('configuration', () => {
  test('UNINSTALL_CHECK_HOURS=0 builds no provider; a checker without an interval never starts', async () => {
    const config = loadConfig({ DATA_DIR: tempDir('config'), ...BOTH, UNINSTALL_CHECK_HOURS: '0' });
    expect(config.uninstallCheckHours).toBe(0);
    expect(pushClientsFor(config)).toEqual([]);
    const on = loadConfig({ DATA_DIR: tempDir('config'), ...BOTH });
    expect(on.uninstallCheckHours).toBe(24);
    const clients = pushClientsFor(on);
    expect(clients.map((client) => client.provider)).toEqual(['apns', 'fcm']);
    await Promise.all(clients.map((client) => client.close()));
  });
});

for (const backend of backends()) {
  describe(`uninstall checker on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, BOTH, { workers: false, mirror: false });
    beforeEach(() => {
      for (const list of [apns.requests, fcm.requests]) list.length = 0;
      answers.clear();
    });
    afterEach(() => db.query('UPDATE installs SET push_token = NULL'));

    test('each platform goes to its own provider: iOS and tvOS to APNs, Android and Android TV to FCM, Fire TV to none', async () => {
      const ios = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      const tvos = await deviceWithToken(t, { platform: 'tvos', token: apnsToken() });
      const android = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      const androidTv = await deviceWithToken(t, { platform: 'android_tv', token: fcmToken() });
      const fireTv = await deviceWithToken(t, { platform: 'fire_tv', token: fcmToken() });
      answers.set(ios.token, { status: 410, body: { reason: 'Unregistered' } });
      answers.set(android.token, fcmError(404, 'UNREGISTERED'));
      const { checker } = testChecker(t);
      const round = await checker.runOnce();
      expect(round.providers.apns).toMatchObject({ attempted: 2, uninstalled: 1, delivered: 1 });
      expect(round.providers.fcm).toMatchObject({ attempted: 2, uninstalled: 1, delivered: 1 });
      expect(apnsTokensSent().sort()).toEqual([ios.token, tvos.token].sort());
      expect(fcmTokensSent().sort()).toEqual([android.token, androidTv.token].sort());
      expect((await installState(db, fireTv.installId)).uninstall_checked_at).toBeNull();
    });

    test('a round is capped per provider; the next round goes on from where it stopped', async () => {
      const devices = await Promise.all([0, 1, 2, 3, 4].map(() => deviceWithToken(t, { platform: 'ios', token: apnsToken() })));
      const { checker } = testChecker(t, { options: { maxPerRound: 3, batchSize: 2 } });
      expect((await checker.runOnce()).providers.apns?.attempted).toBe(3);
      expect((await checker.runOnce()).providers.apns?.attempted).toBe(2);
      expect((await checker.runOnce()).providers.apns?.attempted).toBe(0);
      expect(apnsTokensSent().sort()).toEqual(devices.map((d) => d.token).sort());
    });

    test('two checkers racing: one takes the lock and sends, the other sends nothing; the lock is free again after', async () => {
      const devices = await Promise.all([0, 1, 2].map(() => deviceWithToken(t, { platform: 'ios', token: apnsToken() })));
      for (const d of devices) answers.set(d.token, { status: 200, delayMs: 100 });
      const first = testChecker(t);
      const second = testChecker(t);
      const rounds = await Promise.all([first.checker.runOnce(), second.checker.runOnce()]);
      expect(rounds.map((round) => round.ran).sort()).toEqual([false, true]);
      expect(rounds.find((round) => !round.ran)).toEqual({ ran: false, providers: {} });
      expect(apnsTokensSent().sort()).toEqual(devices.map((d) => d.token).sort());
      const lock = await db.tryAdvisoryLock(UNINSTALL_CHECK_LOCK);
      expect(lock).not.toBeNull();
      expect(await db.tryAdvisoryLock(UNINSTALL_CHECK_LOCK)).toBeNull();
      expect((await second.checker.runOnce()).ran).toBe(false);
      await lock!.release();
      expect((await second.checker.runOnce()).ran).toBe(true);
    });

    test('start() runs rounds on its timer; without an interval it never does', async () => {
      const d = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      const off = testChecker(t, { options: { intervalMs: 0 } });
      off.checker.start();
      await Bun.sleep(100);
      expect(fcm.requests).toEqual([]);
      await off.checker.stop();
      const on = testChecker(t);
      on.checker.start();
      await eventually(() => fcmTokensSent().includes(d.token));
      await on.checker.stop();
      expect(on.logs).toEqual(['uninstall checks: FCM 1 attempted, 1 delivered, 0 uninstalled, 0 rejected, 0 failed']);
    });

    test('start() names each provider left unconfigured, once; with neither the checker stays off', async () => {
      const config = loadConfig({ DATA_DIR: tempDir('config'), FCM_CREDENTIALS: account.path, FCM_URL: fcm.url, GOOGLE_OAUTH_TOKEN_URL: oauth.url });
      const fcmOnly = testChecker(t, { clients: pushClientsFor(config), options: { firstRoundAfterMs: 60_000 } });
      fcmOnly.checker.start();
      fcmOnly.checker.start();
      expect(fcmOnly.logs).toEqual([
        'uninstall checks: APNs is not configured (APNS_KEY_PATH, APNS_KEY_ID, APNS_TEAM_ID): ios and tvos installs are not checked',
      ]);
      const none = testChecker(t, { clients: [] });
      none.checker.start();
      expect(none.logs).toEqual(['uninstall checks are off: neither APNs nor FCM is configured']);
      await Promise.all([fcmOnly.checker.stop(), none.checker.stop()]);
    });

    test('stop() cuts a round short: the pushes in flight are dropped and nothing is recorded', async () => {
      const d = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      answers.set(d.token, 'hang');
      const { checker } = testChecker(t, { timeoutMs: 30_000 });
      checker.start();
      await eventually(() => apns.requests.length > 0);
      await checker.stop();
      expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
    });

    test('a reinstall clears the mark: a later SDK install, open or push-token call of the same app and device', async () => {
      const time = testClock();
      const d = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      answers.set(d.token, { status: 410, body: { reason: 'Unregistered' } });
      const { checker } = testChecker(t, { clock: time.clock });
      expect((await checker.runOnce()).providers.apns?.uninstalled).toBe(1);
      const marked = async () => (await installState(db, d.installId)).uninstalled_at !== null;
      expect(await marked()).toBe(true);

      // Another app's SDK key reaches only that app's installs: the mark stays.
      const other = await deviceWithToken(t, { platform: 'ios', token: apnsToken(), orgId: d.orgId });
      expect((await other.call('install', { device_id: d.deviceId, platform: 'ios' })).status).toBe(201);
      expect((await other.call('open', { device_id: d.deviceId })).status).toBe(200);
      expect(await marked()).toBe(true);

      const repeat = await d.call('install', { device_id: d.deviceId, platform: 'ios' });
      expect(repeat.status).toBe(200);
      expect((await body(repeat)).install_id).toBe(d.installId);
      expect(await marked()).toBe(false);

      const remark = () => markUninstalled(db, { orgId: d.orgId, installId: d.installId, token: d.token, provider: 'apns', at: time.clock() });
      expect(await remark()).toBe(true);
      expect((await d.call('open', { device_id: d.deviceId })).status).toBe(200);
      expect(await marked()).toBe(false);
      expect(await remark()).toBe(true);
      expect((await d.call('push-token', { device_id: d.deviceId, push_token: d.token, platform: 'ios' })).status).toBe(200);
      expect(await marked()).toBe(false);
      expect(await uninstallEvents(db, d.installId)).toHaveLength(3);

      // Reinstalled, it is checked again once its interval has passed.
      answers.set(d.token, { status: 200 });
      time.advance(24 * HOUR_MS);
      expect((await checker.runOnce()).providers.apns).toMatchObject({ delivered: 2, uninstalled: 0 });
      expect(apnsTokensSent().filter((token) => token === d.token)).toHaveLength(2);
    });

    test('an install whose token was replaced after the push went out is not marked', async () => {
      const d = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      expect((await d.call('push-token', { device_id: d.deviceId, push_token: fcmToken(), platform: 'android' })).status).toBe(200);
      expect(await markUninstalled(db, { orgId: d.orgId, installId: d.installId, token: d.token, provider: 'fcm', at: new Date() })).toBe(false);
      expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
      expect(await uninstallEvents(db, d.installId)).toEqual([]);
    });

    test('an install named with another organization is not marked', async () => {
      const d = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      const other = await orgWithKey(db, 'Other');
      expect(await markUninstalled(db, { orgId: other.orgId, installId: d.installId, token: d.token, provider: 'fcm', at: new Date() })).toBe(false);
      expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
      expect(await uninstallEvents(db, d.installId)).toEqual([]);
    });
  });
}
