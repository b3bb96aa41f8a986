import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { createApnsClient, APNS_JWT_LIFETIME_MS } from '../../src/uninstalls/apns.client';
import { HOUR_MS } from '../../src/uninstalls/checker';
import { testApp } from '../support/app';
import { backends } from '../support/db';
import {
  APNS_KEY_ID,
  APNS_TEAM_ID,
  apnsKey,
  apnsToken,
  deviceWithToken,
  fakeApns,
  installState,
  TEST_CA_PATH,
  testChecker,
  testClock,
  uninstallEvents,
  type FakeAnswer,
} from './support';

const key = apnsKey();
const CA = readFileSync(TEST_CA_PATH, 'utf8');
const answers = new Map<string, FakeAnswer>();
const apns = await fakeApns({ publicKey: key.publicKey }, (token) => answers.get(token) ?? { status: 200 });
const clientWith = (input: { keyPath?: string; keyId?: string; ca?: string | undefined; timeoutMs?: number; now?: () => number } = {}) =>
  createApnsClient({
    keyPem: readFileSync(input.keyPath ?? key.path, 'utf8'),
    keyId: input.keyId ?? APNS_KEY_ID,
    teamId: APNS_TEAM_ID,
    url: apns.url,
    ca: 'ca' in input ? input.ca : CA,
    timeoutMs: input.timeoutMs ?? 3000,
    now: input.now,
  });

describe('APNs client', () => {
  test('one provider JWT serves every push for 50 minutes, then a new one is signed', async () => {
    // Started 55 minutes back, so both JWTs are under an hour old for the fake's check.
    let now = Date.now() - 55 * 60_000;
    const client = clientWith({ now: () => now });
    const target = { token: apnsToken(), bundleId: 'com.example.game' };
    const signal = new AbortController().signal;
    const before = apns.jwtsSeen.length;
    expect(await client.send(target, signal)).toEqual({ kind: 'delivered' });
    now += APNS_JWT_LIFETIME_MS - 1000;
    expect(await client.send(target, signal)).toEqual({ kind: 'delivered' });
    now += 2000;
    expect(await client.send(target, signal)).toEqual({ kind: 'delivered' });
    const seen = apns.jwtsSeen.slice(before);
    expect(seen.map((jwt) => jwt.kid)).toEqual([APNS_KEY_ID, APNS_KEY_ID, APNS_KEY_ID]);
    expect(seen.map((jwt) => jwt.iss)).toEqual([APNS_TEAM_ID, APNS_TEAM_ID, APNS_TEAM_ID]);
    expect(seen[0]!.iat).toBe(seen[1]!.iat);
    expect(seen[2]!.iat).toBe(Math.floor(now / 1000));
    await client.close();
  });

  test('a JWT naming another key id is refused (403 InvalidProviderToken)', async () => {
    const client = clientWith({ keyId: 'OTHER12345' });
    expect(await client.send({ token: apnsToken(), bundleId: 'com.example.game' }, new AbortController().signal)).toEqual({ kind: 'refused', reason: 'InvalidProviderToken' });
    await client.close();
  });

  test('a certificate the client does not trust fails the connection: unavailable, nothing sent', async () => {
    const client = clientWith({ ca: undefined });
    const before = apns.requests.length;
    const outcome = await client.send({ token: apnsToken(), bundleId: 'com.example.game' }, new AbortController().signal);
    expect(outcome.kind).toBe('unavailable');
    expect(apns.requests.length).toBe(before);
    await client.close();
  });
});

for (const backend of backends()) {
  describe(`APNs uninstall checks on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(
      db,
      { APNS_KEY_PATH: key.path, APNS_KEY_ID, APNS_TEAM_ID, APNS_URL: apns.url, APNS_CA_PATH: TEST_CA_PATH, TRUST_PROXY: '1' },
      { workers: false, mirror: false },
    );
    beforeEach(() => {
      apns.requests.length = 0;
      answers.clear();
    });
    // Each test's round sees only its own installs.
    afterEach(() => db.query('UPDATE installs SET push_token = NULL'));

    test('410 Unregistered marks the install uninstalled with an uninstall event; later rounds leave it alone', async () => {
      const { clock } = testClock();
      const d = await deviceWithToken(t, { platform: 'ios', token: apnsToken(), bundleId: 'com.example.game' });
      answers.set(d.token, { status: 410, body: { reason: 'Unregistered', timestamp: 1_700_000_000_000 } });
      const { checker } = testChecker(t, { clock });
      const round = await checker.runOnce();
      expect(round).toEqual({ ran: true, providers: { apns: { attempted: 1, delivered: 0, uninstalled: 1, rejected: 0, failed: 0, stoppedBy: null } } });
      expect(await installState(db, d.installId)).toEqual({ uninstalled_at: clock(), uninstall_checked_at: clock() });
      expect(await uninstallEvents(db, d.installId)).toEqual([
        { name: 'uninstall', org_id: d.orgId, app_id: d.appId, params: { campaign_id: null, provider: 'apns' }, occurred_at: clock() },
      ]);
      expect(apns.requests).toEqual([
        {
          method: 'POST',
          path: `/3/device/${d.token}`,
          headers: expect.objectContaining({
            'apns-push-type': 'background',
            'apns-priority': '5',
            'apns-topic': 'com.example.game',
            'content-type': 'application/json',
            authorization: expect.stringMatching(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/),
          }),
          body: '{"aps":{"content-available":1}}',
        },
      ]);
      expect((await checker.runOnce()).providers.apns?.attempted).toBe(0);
      expect(apns.requests).toHaveLength(1);
    });

    test('a delivered push settles iOS and tvOS installs until their interval has passed', async () => {
      const time = testClock();
      const phone = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      const tv = await deviceWithToken(t, { platform: 'tvos', token: apnsToken() });
      const { checker } = testChecker(t, { clock: time.clock });
      const connections = apns.counts.connections;
      expect((await checker.runOnce()).providers.apns).toMatchObject({ attempted: 2, delivered: 2, uninstalled: 0 });
      // One HTTP/2 connection carries the round's pushes and is closed after it.
      expect(apns.counts.connections).toBe(connections + 1);
      for (const d of [phone, tv]) expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: time.clock() });
      time.advance(HOUR_MS);
      expect((await checker.runOnce()).providers.apns?.attempted).toBe(0);
      time.advance(23 * HOUR_MS);
      expect((await checker.runOnce()).providers.apns?.attempted).toBe(2);
      expect(apns.counts.connections).toBe(connections + 2);
      expect(apns.requests.map((r) => r.path).sort()).toEqual([phone, tv, phone, tv].map((d) => `/3/device/${d.token}`).sort());
    });

    test('a refused provider token (403) marks and records nothing, stops APNs for the round, and is retried next round', async () => {
      const first = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      const second = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      for (const d of [first, second]) answers.set(d.token, { status: 410, body: { reason: 'Unregistered' } });
      const wrong = apnsKey();
      const refused = testChecker(t, { clients: [clientWith({ keyPath: wrong.path })], options: { concurrency: 1 } });
      const round = await refused.checker.runOnce();
      expect(round.providers.apns).toMatchObject({ attempted: 1, uninstalled: 0, stoppedBy: 'refused: InvalidProviderToken' });
      expect(refused.logs).toContain('uninstall checks: APNs rests until the next round (refused: InvalidProviderToken)');
      for (const d of [first, second]) expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
      const fixed = testChecker(t);
      expect((await fixed.checker.runOnce()).providers.apns).toMatchObject({ attempted: 2, uninstalled: 2 });
    });

    test('an outage (500, 429, 503) or a timeout marks and records nothing; the next round tries again', async () => {
      const devices = await Promise.all([0, 1, 2, 3].map(() => deviceWithToken(t, { platform: 'ios', token: apnsToken() })));
      const failing: FakeAnswer[] = [
        { status: 500, body: { reason: 'InternalServerError' } },
        { status: 429, body: { reason: 'TooManyRequests' } },
        { status: 503, body: { reason: 'ServiceUnavailable' } },
        'hang',
      ];
      devices.forEach((d, i) => answers.set(d.token, failing[i]!));
      const { checker } = testChecker(t, { timeoutMs: 300 });
      expect((await checker.runOnce()).providers.apns).toMatchObject({ attempted: 4, failed: 4, uninstalled: 0, delivered: 0 });
      for (const d of devices) expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
      for (const d of devices) answers.set(d.token, { status: 410, body: { reason: 'Unregistered' } });
      expect((await checker.runOnce()).providers.apns).toMatchObject({ attempted: 4, uninstalled: 4, failed: 0 });
    });

    test('failed sends in a row rest APNs until the next round', async () => {
      const devices = await Promise.all([0, 1, 2, 3, 4].map(() => deviceWithToken(t, { platform: 'ios', token: apnsToken() })));
      for (const d of devices) answers.set(d.token, { status: 503, body: { reason: 'ServiceUnavailable' } });
      const { checker, logs } = testChecker(t, { options: { concurrency: 1, maxConsecutiveFailures: 3 } });
      expect((await checker.runOnce()).providers.apns).toMatchObject({ attempted: 3, failed: 3, stoppedBy: '3 failed sends in a row, the last: ServiceUnavailable' });
      expect(logs).toEqual([
        'uninstall checks: APNs 3 attempted, 0 delivered, 0 uninstalled, 0 rejected, 3 failed',
        'uninstall checks: APNs rests until the next round (3 failed sends in a row, the last: ServiceUnavailable)',
      ]);
    });

    test('other refusals of a token (400 BadDeviceToken, 410 ExpiredToken) record the check and never mark', async () => {
      const bad = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      const expired = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      answers.set(bad.token, { status: 400, body: { reason: 'BadDeviceToken' } });
      answers.set(expired.token, { status: 410, body: { reason: 'ExpiredToken' } });
      const { clock } = testClock();
      const { checker } = testChecker(t, { clock });
      expect((await checker.runOnce()).providers.apns).toMatchObject({ attempted: 2, rejected: 2, uninstalled: 0 });
      for (const d of [bad, expired]) {
        expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: clock() });
        expect(await uninstallEvents(db, d.installId)).toEqual([]);
      }
    });

    test('tokens go only to the configured APNs host, in the path only when they are hex; none reaches the log', async () => {
      const android = await deviceWithToken(t, { platform: 'android', token: 'fcm-token-for-android' });
      const injected = await deviceWithToken(t, { platform: 'ios', token: '../../../3/device/abcdef0123456789?x=1' });
      const noBundle = await deviceWithToken(t, { platform: 'ios', token: apnsToken(), bundleId: null });
      const fine = await deviceWithToken(t, { platform: 'ios', token: apnsToken() });
      answers.set(fine.token, { status: 410, body: { reason: 'Unregistered' } });
      const { checker, logs } = testChecker(t);
      expect((await checker.runOnce()).providers).toEqual({ apns: { attempted: 2, delivered: 0, uninstalled: 1, rejected: 1, failed: 0, stoppedBy: null } });
      expect(apns.requests.map((r) => r.path)).toEqual([`/3/device/${fine.token}`]);
      // The malformed token is settled without a request; Android and an app without a bundle id are never pushed.
      expect((await installState(db, injected.installId)).uninstall_checked_at).not.toBeNull();
      for (const d of [android, noBundle]) expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
      const logged = logs.join('\n');
      for (const d of [android, injected, noBundle, fine]) expect(logged).not.toContain(d.token);
      expect(logged).toContain('APNs 2 attempted');
    });
  });
}
