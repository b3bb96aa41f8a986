import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { createFcmClient } from '../../src/uninstalls/fcm.client';
import { readFcmAccount } from '../../src/config/credential-files';
import { testApp } from '../support/app';
import { backends } from '../support/db';
import { deviceWithToken, fakeFcm, fakeOAuth, fcmError, fcmToken, installState, serviceAccount, testChecker, testClock, uninstallEvents, type FakeAnswer } from './support';

const account = serviceAccount();
const oauth = fakeOAuth(account);
const answers = new Map<string, FakeAnswer>();
const fcm = fakeFcm(oauth, (token) => answers.get(token) ?? { status: 200 });
/** Where a redirect from the fake FCM points: nothing may ever arrive here. */
const elsewhere = fakeFcm({ issued: [] });

const clientWith = (input: { credentialsPath?: string; tokenUrl?: string; timeoutMs?: number } = {}) =>
  createFcmClient({
    account: readFcmAccount(input.credentialsPath ?? account.path),
    url: fcm.url,
    tokenUrl: input.tokenUrl ?? oauth.url,
    timeoutMs: input.timeoutMs ?? 3000,
  });

for (const backend of backends()) {
  describe(`FCM uninstall checks on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(
      db,
      { FCM_CREDENTIALS: account.path, FCM_URL: fcm.url, GOOGLE_OAUTH_TOKEN_URL: oauth.url, TRUST_PROXY: '1' },
      { workers: false, mirror: false },
    );
    beforeEach(() => {
      for (const list of [fcm.requests, oauth.requests, elsewhere.requests]) list.length = 0;
      answers.clear();
    });
    afterEach(() => db.query('UPDATE installs SET push_token = NULL'));

    test('404 UNREGISTERED marks the install uninstalled with an uninstall event; one access token serves the round', async () => {
      const { clock } = testClock();
      const gone = await deviceWithToken(t, { platform: 'android', token: fcmToken(), bundleId: 'com.example.game' });
      const there = await deviceWithToken(t, { platform: 'android_tv', token: fcmToken(), bundleId: 'com.example.tv' });
      answers.set(gone.token, fcmError(404, 'UNREGISTERED'));
      const { checker } = testChecker(t, { clock });
      expect(await checker.runOnce()).toEqual({ ran: true, providers: { fcm: { attempted: 2, delivered: 1, uninstalled: 1, rejected: 0, failed: 0, stoppedBy: null } } });
      expect(await installState(db, gone.installId)).toEqual({ uninstalled_at: clock(), uninstall_checked_at: clock() });
      expect(await installState(db, there.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: clock() });
      expect(await uninstallEvents(db, gone.installId)).toEqual([
        { name: 'uninstall', org_id: gone.orgId, app_id: gone.appId, params: { campaign_id: null, provider: 'fcm' }, occurred_at: clock() },
      ]);
      expect(oauth.requests).toHaveLength(1);
      expect(oauth.requests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const bearer = `Bearer ${oauth.issued.at(-1)}`;
      const sent = fcm.requests.map((r) => ({ method: r.method, path: r.path, authorization: r.headers.authorization, message: JSON.parse(r.body).message }));
      expect(sent.sort((a, b) => a.message.token.localeCompare(b.message.token))).toEqual(
        [
          { token: gone.token, android: { priority: 'normal', restricted_package_name: 'com.example.game' } },
          { token: there.token, android: { priority: 'normal', restricted_package_name: 'com.example.tv' } },
        ]
          .map(({ token, android }) => ({
            method: 'POST',
            path: `/v1/projects/${account.projectId}/messages:send`,
            authorization: bearer,
            message: { token, data: { svc_uninstall_check: '1' }, android },
          }))
          .sort((a, b) => a.message.token.localeCompare(b.message.token)),
      );
      expect((await checker.runOnce()).providers.fcm?.attempted).toBe(0);
    });

    test('a revoked access token (401) is refused, nothing recorded; the next round trades a new one and goes on', async () => {
      const d = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      answers.set(d.token, fcmError(404, 'UNREGISTERED'));
      const client = clientWith();
      const { checker } = testChecker(t, { clients: [client] });
      await client.send({ token: fcmToken(), bundleId: null }, new AbortController().signal);
      oauth.issued.length = 0;
      expect((await checker.runOnce()).providers.fcm).toMatchObject({ attempted: 1, uninstalled: 0, stoppedBy: 'refused: HTTP 401 UNAUTHENTICATED' });
      expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
      expect((await checker.runOnce()).providers.fcm).toMatchObject({ attempted: 1, uninstalled: 1 });
      expect(oauth.requests).toHaveLength(2);
    });

    test('a key the token endpoint refuses, or its outage, marks nothing and sends no push', async () => {
      const d = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      answers.set(d.token, fcmError(404, 'UNREGISTERED'));
      const stranger = serviceAccount();
      const refused = testChecker(t, { clients: [clientWith({ credentialsPath: stranger.path })] });
      expect((await refused.checker.runOnce()).providers.fcm).toMatchObject({ attempted: 1, uninstalled: 0, stoppedBy: 'refused: token exchange: HTTP 400 invalid_grant' });
      const down = fakeOAuth(account, { status: 503 });
      const unavailable = testChecker(t, { clients: [clientWith({ tokenUrl: down.url })] });
      expect((await unavailable.checker.runOnce()).providers.fcm).toMatchObject({ attempted: 1, failed: 1, uninstalled: 0 });
      expect(fcm.requests).toEqual([]);
      expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
    });

    test('an outage (500, 503, 429) or a timeout marks and records nothing; the next round tries again', async () => {
      const devices = await Promise.all([0, 1, 2, 3].map(() => deviceWithToken(t, { platform: 'android', token: fcmToken() })));
      const failing: FakeAnswer[] = [fcmError(500, 'INTERNAL', 'INTERNAL'), fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE'), fcmError(429, 'QUOTA_EXCEEDED', 'RESOURCE_EXHAUSTED'), 'hang'];
      devices.forEach((d, i) => answers.set(d.token, failing[i]!));
      const { checker } = testChecker(t, { timeoutMs: 300 });
      expect((await checker.runOnce()).providers.fcm).toMatchObject({ attempted: 4, failed: 4, uninstalled: 0 });
      for (const d of devices) expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
      for (const d of devices) answers.set(d.token, fcmError(404, 'UNREGISTERED'));
      expect((await checker.runOnce()).providers.fcm).toMatchObject({ attempted: 4, uninstalled: 4 });
    });

    test('a token refused otherwise (400 INVALID_ARGUMENT, 403 SENDER_ID_MISMATCH) is recorded, never marked; 403 PERMISSION_DENIED rests FCM', async () => {
      const invalid = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      const otherProject = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      answers.set(invalid.token, fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT'));
      answers.set(otherProject.token, fcmError(403, 'SENDER_ID_MISMATCH', 'PERMISSION_DENIED'));
      const { clock } = testClock();
      const { checker } = testChecker(t, { clock });
      expect((await checker.runOnce()).providers.fcm).toMatchObject({ attempted: 2, rejected: 2, uninstalled: 0, stoppedBy: null });
      for (const d of [invalid, otherProject]) expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: clock() });

      const denied = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      answers.set(denied.token, { status: 403, body: { error: { code: 403, status: 'PERMISSION_DENIED' } } });
      expect((await checker.runOnce()).providers.fcm).toMatchObject({ attempted: 1, stoppedBy: 'refused: HTTP 403 PERMISSION_DENIED' });
      expect(await installState(db, denied.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
    });

    test('tokens go only to the configured FCM host: never along a redirect, never to the token endpoint, never iOS ones', async () => {
      const moved = await deviceWithToken(t, { platform: 'android', token: fcmToken() });
      const ios = await deviceWithToken(t, { platform: 'ios', token: 'ab'.repeat(32) });
      answers.set(moved.token, { status: 307, headers: { location: `${elsewhere.url}/v1/projects/${account.projectId}/messages:send` } });
      const { checker, logs } = testChecker(t);
      expect((await checker.runOnce()).providers.fcm).toMatchObject({ attempted: 1, uninstalled: 0, stoppedBy: 'refused: HTTP 307' });
      expect(elsewhere.requests).toEqual([]);
      expect(fcm.requests.map((r) => JSON.parse(r.body).message.token)).toEqual([moved.token]);
      for (const d of [moved, ios]) {
        expect(await installState(db, d.installId)).toEqual({ uninstalled_at: null, uninstall_checked_at: null });
        for (const r of oauth.requests) expect(r.body).not.toContain(d.token);
        expect(logs.join('\n')).not.toContain(d.token);
      }
    });
  });
}
