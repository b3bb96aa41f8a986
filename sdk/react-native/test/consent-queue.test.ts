import { describe, expect, test } from 'bun:test';
import { FLUSH_AT_EVENTS, FLUSH_INTERVAL_MS, QUEUE_CAP } from '../../core/src';
import { FakeDevice, settle } from './support/fake-native';

const CLICK = '01CLICK00000000000000000AB';
const LINK = `myapp://open?svc_click_id=${CLICK}&deep_link_path=%2Fproduct%2F42`;

describe('consent', () => {
  test('pending sends nothing: the install, session_start and events wait; the launch link is parsed and routed', async () => {
    const device = new FakeDevice();
    const sdk = await device.launch({ requireConsent: true }, LINK);
    sdk.logEvent('level_complete', { value: 3 });
    await device.clock.advance(5 * FLUSH_INTERVAL_MS);
    expect(sdk.consentStatus()).toBe('pending');
    expect(device.server.requests).toEqual([]);
    expect(sdk.queueStats().queued).toBe(2);
    expect(device.deepLinks).toEqual([{ path: '/product/42', url: LINK, clickId: CLICK, deferred: false }]);

    sdk.setConsent(true);
    await device.clock.advance(0);
    const [install] = device.server.to('install');
    expect(install!.body).toMatchObject({ platform: 'android', click_id: CLICK, os_version: '14', app_version: '3.2.1', install_referrer: 'utm_source=google-play&utm_medium=organic', sdk_version: '0.1.0' });
    expect(install!.headers['X-SDK-Key']).toBe('sk_test');
    expect(device.server.delivered()).toEqual(['session_start', 'level_complete']);
    expect(device.attributions).toMatchObject([{ kind: 'install', firstLaunch: true }]);
  });

  test('granted is persisted: the next launch sends at once', async () => {
    const device = new FakeDevice();
    const first = await device.launch({ requireConsent: true });
    first.setConsent(true);
    await device.clock.advance(0);
    await first.persisted();
    first.stop();
    const second = await device.launch({ requireConsent: true });
    expect(second.consentStatus()).toBe('granted');
    second.logEvent('purchase', { value: 9.99, currency: 'eur' });
    await second.flush();
    expect(device.server.to('events').at(-1)!.body.events).toMatchObject([{ name: 'purchase', value: 9.99, currency: 'EUR' }]);
  });

  test('denied clears the queue, sends nothing and drops the advertising id; a later grant installs without it', async () => {
    const device = new FakeDevice();
    const sdk = await device.launch({ requireConsent: true, advertisingInfo: () => ({ id: 'ad-id-1', trackingAllowed: true }) });
    sdk.logEvent('signup');
    sdk.setConsent(false);
    await device.clock.advance(3 * FLUSH_INTERVAL_MS);
    sdk.logEvent('ignored');
    expect(sdk.consentStatus()).toBe('denied');
    expect(sdk.queueStats().queued).toBe(0);
    expect(device.server.requests).toEqual([]);
    sdk.setConsent(true);
    await device.clock.advance(0);
    const [install] = device.server.to('install');
    expect(install!.body.advertising_id).toBeUndefined();
    expect(install!.body.limit_ad_tracking).toBeUndefined();
  });

  test('the advertising id goes only with tracking allowed; a failing provider drops only its own field', async () => {
    const allowed = new FakeDevice();
    await allowed.launch({ advertisingInfo: async () => ({ id: 'ad-id-1', trackingAllowed: true }) });
    expect(allowed.server.to('install')[0]!.body).toMatchObject({ advertising_id: 'ad-id-1', limit_ad_tracking: false });

    const limited = new FakeDevice();
    await limited.launch({ advertisingInfo: () => ({ id: 'ad-id-1', trackingAllowed: false }) });
    expect(limited.server.to('install')[0]!.body.advertising_id).toBeUndefined();
    expect(limited.server.to('install')[0]!.body.limit_ad_tracking).toBe(true);

    const failing = new FakeDevice();
    await failing.launch({ advertisingInfo: () => Promise.reject(new Error('native module missing')) });
    expect(failing.server.to('install')[0]!.body).toMatchObject({ platform: 'android', os_version: '14' });
    expect(failing.warnings).toContain('svc: reading the advertising id failed');
  });
});

describe('the queue', () => {
  test('flushes at 20 events, every 10 s, and when the app goes to the background', async () => {
    const device = new FakeDevice();
    const sdk = await device.launch();
    const batches = () => device.server.to('events').length;
    const before = batches();
    for (let i = 0; i < FLUSH_AT_EVENTS - 1; i++) sdk.logEvent(`e${i}`);
    await settle();
    expect(batches()).toBe(before);
    sdk.logEvent('e19');
    await settle();
    expect(batches()).toBe(before + 1);

    sdk.logEvent('timer');
    await device.clock.advance(FLUSH_INTERVAL_MS - 1);
    expect(batches()).toBe(before + 1);
    await device.clock.advance(1);
    expect(batches()).toBe(before + 2);

    sdk.logEvent('background');
    device.os.state('background');
    await settle();
    expect(batches()).toBe(before + 3);
    expect(device.server.delivered().slice(-2)).toEqual(['timer', 'background']);
  });

  test('holds 500 events: past the cap the oldest are dropped and counted; the rest are sent once', async () => {
    const device = new FakeDevice();
    const sdk = await device.launch({ requireConsent: true });
    for (let i = 0; i < QUEUE_CAP + 25; i++) sdk.logEvent(`e${i}`);
    // session_start and e0 to e24 are the 26 oldest.
    expect(sdk.queueStats()).toEqual({ queued: QUEUE_CAP, dropped: 26 });
    sdk.setConsent(true);
    await device.clock.advance(0);
    await sdk.flush();
    expect(device.server.delivered()).toEqual(Array.from({ length: QUEUE_CAP }, (_, i) => `e${i + 25}`));
    expect(device.server.to('events').map((request) => request.body.events.length)).toEqual([100, 100, 100, 100, 100]);
    expect(sdk.queueStats()).toEqual({ queued: 0, dropped: 26 });
  });

  test('a network cut then restored delivers each event once, in order', async () => {
    const device = new FakeDevice();
    const sdk = await device.launch();
    await sdk.flush();
    device.server.offline = true;
    for (let i = 0; i < 30; i++) sdk.logEvent(`e${i}`);
    await device.clock.advance(60_000);
    expect(device.server.delivered()).toEqual(['session_start']);
    device.server.offline = false;
    await device.clock.advance(FLUSH_INTERVAL_MS);
    await sdk.flush();
    expect(device.server.delivered()).toEqual(['session_start', ...Array.from({ length: 30 }, (_, i) => `e${i}`)]);
  });

  test('a session_start after 30 minutes in the background, none for a short switch', async () => {
    const device = new FakeDevice();
    const sdk = await device.launch();
    await sdk.flush();
    device.os.state('background');
    await device.clock.advance(5 * 60_000);
    device.os.state('active');
    await device.clock.advance(31 * 60_000);
    device.os.state('active');
    await sdk.flush();
    expect(device.server.delivered()).toEqual(['session_start', 'session_start']);
  });
});
