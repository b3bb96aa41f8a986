import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createHash } from 'node:crypto';
import type { Attribution } from '../../sdk/core/src';
import type { DeepLinkEvent, ReactNativeConfig } from '../../sdk/react-native/src/config';
import type { NativeDeps } from '../../sdk/react-native/src/native';
import { ReactNativeSdk } from '../../sdk/react-native/src/sdk';
import { FakeAsyncStorage, FakeOs } from '../../sdk/react-native/test/support/fake-native';
import { apiKeyOver } from '../support/over-http';
import { eventually } from '../support/wait';
import type { RunningServer } from '../support/server';
import { clickOnce, e2eBackends, startTrackingServer } from './tracking-support';

/**
 * The React Native SDK's code (sdk/react-native) against the real server process: its native
 * modules (AsyncStorage, Linking, AppState, Platform, react-native-device-info) are in-memory
 * fakes, its fetch and clock are real (docs/sdk.md).
 */

// A real server per backend, and the SDK's own retry waits of a few seconds.
setDefaultTimeout(120_000);

const json = { 'content-type': 'application/json' };
/** A phone's browser: a click from a tool's user agent is kept but never attributed. */
const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const deviceHash = (raw: string) => createHash('sha256').update(raw).digest('hex');

/** One phone: its storage and OS survive relaunches; `offline` cuts its network. */
class Phone {
  readonly storage = new FakeAsyncStorage();
  readonly os = new FakeOs();
  readonly attributions: Attribution[] = [];
  readonly deepLinks: DeepLinkEvent[] = [];
  offline = false;
  installReferrer: string | null = null;
  private sdk: ReactNativeSdk | undefined;

  constructor(private readonly config: { sdkKey: string; baseUrl: string }) {}

  native(): NativeDeps {
    return {
      storage: this.storage,
      linking: this.os.linking,
      appState: this.os.appState,
      platform: { OS: 'android', Version: 34, constants: { Release: '14' } },
      deviceInfo: { getInstallReferrer: async () => this.installReferrer ?? 'unknown', getVersion: () => '2.0.0' },
      fetch: async (url, init) => {
        if (this.offline) throw new TypeError('Network request failed');
        return fetch(url, init);
      },
    };
  }

  /** A cold start, from `initialUrl` when given; resolves once the install (or open) has answered. */
  async launch(initialUrl: string | null = null, config: Partial<ReactNativeConfig> = {}): Promise<ReactNativeSdk> {
    this.sdk?.stop();
    this.os.initialUrl = initialUrl;
    this.sdk = await ReactNativeSdk.start(
      { ...this.config, onAttribution: (a) => void this.attributions.push(a), onDeepLink: (l) => void this.deepLinks.push(l), ...config },
      this.native(),
      { warn: () => {} },
    );
    await this.sdk.flush();
    return this.sdk;
  }

  async deviceId(): Promise<string> {
    const key = [...this.storage.map.keys()].find((k) => k.endsWith(':device'))!;
    return JSON.parse(this.storage.map.get(key)!) as string;
  }

  stop(): void {
    this.sdk?.stop();
  }
}

for (const backend of await e2eBackends()) {
  describe(`React Native SDK against the real server on ${backend.name}`, () => {
    let server: RunningServer;
    let sdkKey: string;
    let slug: string;
    let auth: Record<string, string>;
    const phones: Record<string, Phone> = {};
    const clicks: Record<string, string> = {};
    const newPhone = (name: string) => (phones[name] = new Phone({ sdkKey, baseUrl: server.url }));
    /** Clicks are written behind the redirect's answer: an install looks them up once they are stored. */
    const stored = (clickId: string) =>
      eventually(async () => ((await (await fetch(`${server.url}/api/v1/clicks?limit=1000`, { headers: auth })).text()).includes(clickId) ? true : undefined), { timeoutMs: 30_000, everyMs: 100 });
    /** A click of the tracking link whose landing is the app's universal link: the URL the app opens with. */
    const clickThrough = async (path: string) => {
      const response = await fetch(`${server.url}/c/${slug}?url=${encodeURIComponent(`https://app.example${path}`)}`, { redirect: 'manual', headers: { 'user-agent': ANDROID_UA } });
      expect(response.status).toBe(302);
      const location = response.headers.get('location')!;
      await stored(new URL(location).searchParams.get('svc_click_id')!);
      return location;
    };

    beforeAll(async () => {
      server = await startTrackingServer(backend);
      auth = { ...json, authorization: `Bearer ${await apiKeyOver(server)}` };
      const app = await fetch(`${server.url}/api/v1/apps`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Shop app', platform: 'android', bundle_id: 'com.example.shop' }) });
      expect(app.status).toBe(201);
      sdkKey = ((await app.json()) as { sdk_key: string }).sdk_key;
      const link = await fetch(`${server.url}/api/v1/links`, { method: 'POST', headers: auth, body: JSON.stringify({ destination: 'https://app.example/open' }) });
      expect(link.status).toBe(201);
      slug = ((await link.json()) as { slug: string }).slug;
    });

    afterAll(async () => {
      for (const phone of Object.values(phones)) phone.stop();
      if (server && server.proc.exitCode === null) await server.stop();
    });

    test('an app opened from a /c redirect installs with its click id: CLICK_ID', async () => {
      const phone = newPhone('clicked');
      const landing = await clickThrough('/open?screen=sale');
      clicks.clicked = new URL(landing).searchParams.get('svc_click_id')!;
      await phone.launch(landing);
      expect(phone.attributions[0]).toMatchObject({ kind: 'install', firstLaunch: true, install: { attribution: { method: 'CLICK_ID', click_id: clicks.clicked } } });
    });

    test('without a click id, an install referrer carrying one (as the store hands it over): INSTALL_REFERRER', async () => {
      const phone = newPhone('referred');
      clicks.referred = (await clickOnce(server, slug))!;
      await stored(clicks.referred);
      phone.installReferrer = `utm_source=google-play&utm_medium=cpc&svc_click_id=${clicks.referred}`;
      await phone.launch();
      expect(phone.attributions[0]).toMatchObject({ kind: 'install', install: { attribution: { method: 'INSTALL_REFERRER', click_id: clicks.referred } } });
    });

    test('a re-open from a deep link with a new click is attributed, and routed', async () => {
      const phone = phones.clicked!;
      const url = await clickThrough('/open?deep_link_path=%2Fproduct%2F42');
      clicks.reopened = new URL(url).searchParams.get('svc_click_id')!;
      const answered = new Promise<void>((resolve) => {
        const seen = phone.attributions.length;
        const timer = setInterval(() => {
          if (phone.attributions.length > seen) resolve(clearInterval(timer));
        }, 20);
      });
      phone.os.openUrl(url);
      await answered;
      expect(phone.attributions.at(-1)).toMatchObject({ kind: 'open', open: { attributed: true } });
      expect(phone.deepLinks.at(-1)).toEqual({ path: '/product/42', url, clickId: clicks.reopened, deferred: false });
    });

    test('events, push token, subscription and ad revenue are accepted', async () => {
      const sdk = await phones.referred!.launch();
      sdk.logEvent('purchase', { value: 4.5, currency: 'EUR', params: { sku: 'tea' } });
      await sdk.flush();
      expect(await sdk.setPushToken('fcm-e2e-token')).toMatchObject({ install_id: expect.any(String) });
      expect(await sdk.logSubscription({ store: 'google', productId: 'pro_monthly', purchaseToken: 'e2e-purchase-token', isTrial: true, priceMicros: 4_990_000, currency: 'EUR' })).toMatchObject({ linked: true, created: true });
      expect(await sdk.logAdRevenue({ network: 'admob', revenue: 0.25, currency: 'USD', format: 'rewarded' })).toMatchObject({ accepted: 1 });
    });

    test('a network cut, then restored: each event is delivered once', async () => {
      const phone = newPhone('flaky');
      const sdk = await phone.launch();
      phone.offline = true;
      for (let i = 0; i < 5; i++) sdk.logEvent(`offline_${i}`);
      await sdk.flush(); // three attempts, then the batch waits in the queue
      expect(sdk.queueStats().queued).toBe(5);
      phone.offline = false;
      await sdk.flush();
      expect(sdk.queueStats().queued).toBe(0);
    });

    test('what the server stored', async () => {
      const devices = Object.fromEntries(await Promise.all(Object.entries(phones).map(async ([name, phone]) => [name, deviceHash(await phone.deviceId())] as const)));
      for (const phone of Object.values(phones)) phone.stop();
      if (backend.name === 'pglite') await server.stop();
      const query = <T>(text: string, params: unknown[]) => backend.query<T>(server.dataDir, text, params);

      const installOf = (hash: string) => query<{ id: string; attribution_method: string; click_id: string | null; platform: string; os_version: string; app_version: string; push_token: string | null }>(
        'SELECT id, attribution_method, click_id, platform, os_version, app_version, push_token FROM installs WHERE device_id_hash = $1', [hash]);
      const [clicked] = await installOf(devices.clicked!);
      expect(clicked).toMatchObject({ attribution_method: 'CLICK_ID', click_id: clicks.clicked, platform: 'android', os_version: '14', app_version: '2.0.0' });
      const [referred] = await installOf(devices.referred!);
      expect(referred).toMatchObject({ attribution_method: 'INSTALL_REFERRER', click_id: clicks.referred, push_token: 'fcm-e2e-token' });

      const reopen = await query<{ click_id: string; attributed: boolean; deep_link_path: string | null }>('SELECT click_id, attributed, deep_link_path FROM reengagements WHERE install_id = $1', [clicked!.id]);
      expect(reopen).toMatchObject([{ click_id: clicks.reopened, attributed: true }]);

      const events = (hash: string) => query<{ name: string; n: number }>('SELECT name, count(*)::int AS n FROM events WHERE device_id_hash = $1 GROUP BY name ORDER BY name', [hash]);
      expect(await events(devices.referred!)).toEqual([
        { name: 'ad_revenue', n: 1 },
        { name: 'purchase', n: 1 },
        { name: 'session_start', n: 1 },
        { name: 'trial_start', n: 1 },
      ]);
      expect(await events(devices.flaky!)).toEqual([...Array.from({ length: 5 }, (_, i) => ({ name: `offline_${i}`, n: 1 })), { name: 'session_start', n: 1 }]);
      const subscriptions = await query<{ product_id: string; install_id: string; is_trial: boolean }>('SELECT product_id, install_id, is_trial FROM subscriptions WHERE device_id_hash = $1', [devices.referred!]);
      expect(subscriptions).toEqual([{ product_id: 'pro_monthly', install_id: referred!.id, is_trial: true }]);
    });
  });
}
