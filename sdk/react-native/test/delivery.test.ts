import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { clickIdFromUrl, deepLinkPathFromUrl } from '../../core/src';
import { ERASURE_ID, FakeDevice, INSTALL_ID, settle } from './support/fake-native';

const CLICK = '01CLICK00000000000000000AB';
const gaps = (device: FakeDevice, path: string) => {
  const at = device.server.to(path).map((request) => request.at);
  return at.slice(1).map((time, i) => time - at[i]!);
};

describe('the retry rule with a fake clock', () => {
  test('installs: min(60 s, 2^(n-1) s) with jitter, unlimited attempts, on transport errors, 408, 429 and 5xx', async () => {
    const device = new FakeDevice();
    device.random = () => 0; // the low end of the 20 % jitter
    device.server.answer('install', 'network', { status: 500 }, { status: 408 }, { status: 503 }, 'network', 'network', 'network', 'network');
    await device.launch();
    await device.clock.advance(10 * 60_000);
    expect(device.server.to('install')).toHaveLength(9);
    expect(gaps(device, 'install')).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 48_000, 48_000]);
    expect(device.attributions).toMatchObject([{ kind: 'install', firstLaunch: true }]);
  });

  test("a 429's Retry-After holds every request back; another 4xx is never retried", async () => {
    const device = new FakeDevice();
    device.server.answer('install', { status: 429, headers: { 'Retry-After': '30' }, body: { error: 'rate limited', retry_after: 30 } });
    await device.launch();
    await device.clock.advance(29_999);
    expect(device.server.to('install')).toHaveLength(1);
    await device.clock.advance(1);
    expect(device.server.to('install')).toHaveLength(2);

    const refused = new FakeDevice();
    refused.server.answer('install', { status: 400, body: { error: 'platform mismatch' } });
    await refused.launch();
    await refused.clock.advance(10 * 60_000);
    expect(refused.server.to('install')).toHaveLength(1);
    expect(refused.warnings).toContain('svc: the install call was refused (status 400)');
  });

  test('event batches: 3 attempts (1 s then 2 s apart, jittered; the cap is 8 s), then the batch waits in the queue for the next flush', async () => {
    const device = new FakeDevice();
    device.random = () => 0.999_999; // the high end
    const sdk = await device.launch();
    await sdk.flush();
    device.server.answer('events', { status: 502 }, { status: 502 }, { status: 502 });
    sdk.logEvent('purchase', { value: 1, currency: 'USD' });
    const flushed = sdk.flush();
    await device.clock.advance(3_700);
    await flushed;
    const batches = device.server.to('events').slice(1);
    expect(batches).toHaveLength(3);
    expect(gaps(device, 'events').slice(1).map((gap) => Math.round(gap / 100) * 100)).toEqual([1200, 2400]);
    expect(sdk.queueStats().queued).toBe(1);
    await device.clock.advance(10_000);
    expect(device.server.delivered()).toEqual(['session_start', 'purchase']);
  });

  test('a relaunch resumes an install that never got its answer, with the same device and click', async () => {
    const device = new FakeDevice();
    device.server.offline = true;
    const first = await device.launch({}, `https://app.example/open?svc_click_id=${CLICK}`);
    first.logEvent('tutorial_begin');
    await device.clock.advance(5 * 60_000);
    await first.persisted();
    first.stop(); // the app is killed before any install answer
    const tries = device.server.to('install');
    expect(tries.length).toBeGreaterThan(3);

    device.server.offline = false;
    await device.launch();
    await device.clock.advance(0);
    const resumed = device.server.to('install').at(-1)!;
    expect(resumed.body.device_id).toBe(tries[0]!.body.device_id);
    expect(resumed.body.click_id).toBe(CLICK);
    expect(resumed.body.installed_at).toBe(tries[0]!.body.installed_at);
    expect(device.attributions).toMatchObject([{ kind: 'install', firstLaunch: true, install: { install_id: INSTALL_ID, attribution: { method: 'CLICK_ID' } } }]);
    expect(device.server.delivered()).toEqual(['session_start', 'tutorial_begin']);
  });
});

describe('deep links', () => {
  test('the deferred deep link of a first install goes to onDeepLink; a later launch only calls onAttribution', async () => {
    const device = new FakeDevice();
    device.server.deferredPath = '/promo/spring';
    const first = await device.launch();
    await device.clock.advance(0);
    expect(device.deepLinks).toEqual([{ path: '/promo/spring', url: null, clickId: null, deferred: true }]);
    await first.persisted();
    first.stop();
    await device.launch();
    expect(device.deepLinks).toHaveLength(1);
    expect(device.attributions.map((a) => a.kind === 'install' && a.firstLaunch)).toEqual([true, false]);
  });

  test('a url event of an installed app is routed and reported as a re-open; the answer reaches onAttribution', async () => {
    const device = new FakeDevice();
    await device.launch();
    await device.clock.advance(0);
    const url = `myapp://product?svc_click_id=${CLICK}&deep_link_path=%252Fproduct%252F9`;
    device.os.openUrl(url);
    await settle();
    expect(device.deepLinks).toEqual([{ path: '/product/9', url, clickId: CLICK, deferred: false }]);
    expect(device.server.to('open')[0]!.body).toMatchObject({ click_id: CLICK, url });
    expect(device.attributions.at(-1)).toMatchObject({ kind: 'open', open: { attributed: true } });
  });

  test('a relaunch from a link with a new click is a re-open; the same click again is not', async () => {
    const device = new FakeDevice();
    (await device.launch()).stop();
    await device.clock.advance(0);
    (await device.launch({}, `myapp://open?svc_click_id=${CLICK}`)).stop();
    await device.clock.advance(0);
    expect(device.server.to('open')).toHaveLength(1);
    await device.launch({}, `myapp://open?svc_click_id=${CLICK}`);
    await device.clock.advance(0);
    expect(device.server.to('open')).toHaveLength(1);
  });

  test('any link, with or without the parameters, routes its path and sends its click id (property)', async () => {
    const segment = fc.stringMatching(/^[a-z0-9-]{1,8}$/);
    const clickId = fc.stringMatching(/^[A-Za-z0-9_-]{4,64}$/);
    await fc.assert(
      fc.asyncProperty(fc.option(clickId, { nil: undefined }), fc.option(fc.array(segment, { minLength: 1, maxLength: 3 }), { nil: undefined }), fc.boolean(), async (id, parts, twice) => {
        const device = new FakeDevice();
        await device.launch();
        await device.clock.advance(0);
        const path = parts ? `/${parts.join('/')}` : undefined;
        const params = [id ? `svc_click_id=${id}` : '', path ? `deep_link_path=${encodeURIComponent(twice ? encodeURIComponent(path) : path)}` : ''].filter(Boolean);
        const url = `myapp://x${params.length ? `?${params.join('&')}` : ''}`;
        device.os.openUrl(url);
        await settle();
        const open = device.server.to('open')[0]!.body;
        return open.click_id === (id ?? null) && open.click_id === clickIdFromUrl(url) && device.deepLinks.length === (path ? 1 : 0) && (device.deepLinks[0]?.path ?? undefined) === path && deepLinkPathFromUrl(url) === (path ?? null);
      }),
      { numRuns: 60 },
    );
  });
});

describe('calls of the install', () => {
  test('push token, subscription and ad revenue bodies match the endpoints', async () => {
    const device = new FakeDevice();
    const sdk = await device.launch();
    expect(await sdk.setPushToken('fcm-token-1')).toEqual({ install_id: INSTALL_ID });
    await sdk.logSubscription({ store: 'google', productId: 'pro_monthly', purchaseToken: 'tok', isTrial: true, priceMicros: 4_990_000, currency: 'EUR' });
    await sdk.logAdRevenue([{ network: 'admob', revenue: 0.0021, currency: 'USD', format: 'banner' }]);
    const deviceId = device.server.to('install')[0]!.body.device_id;
    expect(device.server.to('push-token')[0]!.body).toEqual({ device_id: deviceId, push_token: 'fcm-token-1', platform: 'android' });
    expect(device.server.to('subscription')[0]!.body).toEqual({
      device_id: deviceId, install_id: INSTALL_ID, store: 'google', product_id: 'pro_monthly', original_transaction_id: null, purchase_token: 'tok',
      is_trial: true, price_micros: 4_990_000, currency: 'EUR', expires_at: null, occurred_at: null,
    });
    expect(device.server.to('ad-revenue')[0]!.body).toEqual({
      device_id: deviceId, install_id: INSTALL_ID,
      events: [{ network: 'admob', revenue: 0.0021, currency: 'USD', ad_unit: null, format: 'banner', placement: null, precision: null, source: null }],
    });
  });

  test('bad arguments throw before anything is sent; a refused call rejects', async () => {
    const device = new FakeDevice();
    const sdk = await device.launch();
    await sdk.flush();
    const sent = device.server.requests.length;
    expect(() => sdk.setPushToken('')).toThrow('push token');
    expect(() => sdk.logSubscription({ store: 'apple', productId: 'p' })).toThrow('originalTransactionId');
    expect(() => sdk.logSubscription({ store: 'amazon' as 'apple', productId: 'p' })).toThrow('store');
    expect(() => sdk.logAdRevenue([])).toThrow('1 to 100');
    expect(() => sdk.logAdRevenue({ network: 'x', revenue: -1 })).toThrow('revenue');
    expect(() => sdk.logEvent('')).toThrow(TypeError);
    expect(device.server.requests.length).toBe(sent);
    device.server.answer('push-token', { status: 404, body: { error: 'install not found' } });
    await expect(sdk.setPushToken('t')).rejects.toThrow('push-token failed (status 404)');
  });

  test('updateConversionValue checks the values and calls the app\'s native function on iOS only', async () => {
    const calls: unknown[][] = [];
    const ios = new FakeDevice();
    ios.platform = { OS: 'ios', Version: '17.4' };
    const sdk = await ios.launch({ updateConversionValue: (...args) => void calls.push(args) });
    await sdk.updateConversionValue(42, 'high', true);
    await sdk.updateConversionValue(7);
    expect(calls).toEqual([[42, 'high', true], [7, undefined, false]]);
    await expect(sdk.updateConversionValue(64)).rejects.toThrow('0 to 63');
    await expect(sdk.updateConversionValue(1, 'top' as 'high')).rejects.toThrow('coarse');
    expect(ios.server.to('install')[0]!.body).toMatchObject({ platform: 'ios', os_version: '17.4' });
    expect(ios.server.to('install')[0]!.body).not.toHaveProperty('install_referrer');

    const android = new FakeDevice();
    const other = await android.launch({ updateConversionValue: (...args) => void calls.push(args) });
    await other.updateConversionValue(5);
    expect(calls).toHaveLength(2);
    const bare = new FakeDevice();
    bare.platform = { OS: 'ios', Version: '17.4' };
    await expect((await bare.launch()).updateConversionValue(1)).rejects.toThrow('configure updateConversionValue');
  });

  test('the install referrer: react-native-device-info by default, the app\'s function instead, none without either', async () => {
    const byDefault = new FakeDevice();
    await byDefault.launch();
    expect(byDefault.server.to('install')[0]!.body.install_referrer).toBe('utm_source=google-play&utm_medium=organic');
    const given = new FakeDevice();
    given.deviceInfo = null;
    await given.launch({ installReferrer: async () => `utm_source=x&svc_click_id=${CLICK}` });
    expect(given.server.to('install')[0]!.body.install_referrer).toBe(`utm_source=x&svc_click_id=${CLICK}`);
    const without = new FakeDevice();
    without.deviceInfo = { getInstallReferrer: async () => 'unknown' };
    await without.launch();
    expect(without.server.to('install')[0]!.body.install_referrer).toBeNull();
    expect(without.server.to('install')[0]!.body.app_version).toBeUndefined();
  });
});

test('forget() during an install under way: its late answer writes nothing back', async () => {
  const device = new FakeDevice();
  let answer = () => {};
  device.server.gate = new Promise<void>((resolve) => (answer = resolve));
  const sdk = await device.launch();
  expect(device.server.to('install')).toHaveLength(1);
  const forgetting = sdk.forget();
  answer();
  await device.clock.advance(60_000);
  expect(await forgetting).toBe(ERASURE_ID);
  await sdk.persisted();
  expect([...device.storage.map.keys()]).toEqual([]);
  expect(device.server.to('forget').map((request) => request.body)).toEqual([{ device_id: device.server.to('install')[0]!.body.device_id }]);
});

test('forget() stops the SDK and leaves no key of it in AsyncStorage; other apps\' keys stay', async () => {
  const device = new FakeDevice();
  await device.storage.setItem('other-app:key', 'kept');
  const sdk = await device.launch({}, `myapp://open?svc_click_id=${CLICK}`);
  sdk.logEvent('x');
  await device.clock.advance(0);
  await sdk.persisted();
  expect([...device.storage.map.keys()].filter((key) => key.startsWith('svc_sdk:')).length).toBeGreaterThan(2);
  await sdk.forget();
  expect([...device.storage.map.keys()]).toEqual(['other-app:key']);
  const sent = device.server.requests.length;
  device.os.openUrl(`myapp://open?svc_click_id=${CLICK}`);
  device.os.state('background');
  await device.clock.advance(60_000);
  expect(device.server.requests.length).toBe(sent);
  const fresh = await device.launch();
  await device.clock.advance(0);
  expect(device.server.to('install').at(-1)!.body.device_id).not.toBe(device.server.to('install')[0]!.body.device_id);
  fresh.stop();
});
