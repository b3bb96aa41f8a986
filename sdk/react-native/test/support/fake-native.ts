import { FakeClock, settle } from '../../../core/test/support/fake-clock';
import type { Attribution } from '../../../core/src';
import type { DeepLinkEvent, ReactNativeConfig } from '../../src/config';
import type { AsyncKeyValue, DeviceInfoLike, NativeDeps, PlatformLike } from '../../src/native';
import { ReactNativeSdk } from '../../src/sdk';

export { FakeClock, settle };

/** AsyncStorage over a Map: survives "relaunches" (new SDK instances on the same device). */
export class FakeAsyncStorage implements AsyncKeyValue {
  readonly map = new Map<string, string>();
  async getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  async setItem(key: string, value: string) {
    this.map.set(key, value);
  }
  async removeItem(key: string) {
    this.map.delete(key);
  }
  async getAllKeys() {
    return [...this.map.keys()];
  }
}

/** Linking and AppState whose events the test fires. */
export class FakeOs {
  initialUrl: string | null = null;
  readonly urlListeners = new Set<(event: { url: string }) => void>();
  readonly stateListeners = new Set<(state: string) => void>();

  readonly linking = {
    getInitialURL: async () => this.initialUrl,
    addEventListener: (_type: 'url', listener: (event: { url: string }) => void) => {
      this.urlListeners.add(listener);
      return { remove: () => void this.urlListeners.delete(listener) };
    },
  };

  readonly appState = {
    addEventListener: (_type: 'change', listener: (state: string) => void) => {
      this.stateListeners.add(listener);
      return { remove: () => void this.stateListeners.delete(listener) };
    },
  };

  openUrl(url: string): void {
    for (const listener of [...this.urlListeners]) listener({ url });
  }

  state(state: 'active' | 'background' | 'inactive'): void {
    for (const listener of [...this.stateListeners]) listener(state);
  }
}

export interface SeenRequest {
  path: string;
  body: any;
  headers: Record<string, string>;
  at: number;
}

export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'network';

export const INSTALL_ID = '01INSTALL0000000000000000A';
export const ERASURE_ID = '01ERASURE0000000000000000A';

/** The SDK endpoints as a fake fetch: records requests; `answer` scripts replies, else a success. */
export class FakeServer {
  readonly requests: SeenRequest[] = [];
  readonly script = new Map<string, Reply[]>();
  /** Every request fails as a transport error while true. */
  offline = false;
  /** Answers wait for this while set: a request under way for as long as the test wants. */
  gate: Promise<void> | null = null;
  deferredPath: string | null = null;

  constructor(private readonly clock: FakeClock) {}

  answer(path: string, ...replies: Reply[]): void {
    this.script.set(path, [...(this.script.get(path) ?? []), ...replies]);
  }

  to(path: string): SeenRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  delivered(): string[] {
    return this.accepted.flatMap((body) => body.events.map((event: { name: string }) => event.name));
  }

  private readonly accepted: any[] = [];

  readonly fetch: NativeDeps['fetch'] = async (url, init) => {
    const path = new URL(url).pathname.replace('/api/sdk/v1/', '');
    const body = JSON.parse(init.body);
    this.requests.push({ path, body, headers: init.headers, at: this.clock.now() });
    if (this.gate) await this.gate;
    if (this.offline) throw new TypeError('Network request failed');
    const reply = this.script.get(path)?.shift() ?? this.success(path, body);
    if (reply === 'network') throw new TypeError('Network request failed');
    if (path === 'events' && reply.status < 300) this.accepted.push(body);
    return new Response(JSON.stringify(reply.body ?? {}), { status: reply.status, headers: { 'content-type': 'application/json', ...reply.headers } });
  };

  private success(path: string, body: any): Reply {
    if (path === 'install') {
      const method = body.click_id ? 'CLICK_ID' : 'ORGANIC';
      return { status: 201, body: { install_id: INSTALL_ID, attribution: { method, campaign: null, click_id: body.click_id, deep_link_path: this.deferredPath }, is_reattribution: false } };
    }
    if (path === 'events') return { status: 200, body: { accepted: body.events.length } };
    if (path === 'open') return { status: 200, body: { reengagement_id: '01REENGAGE', attributed: body.click_id !== null, campaign_id: null, deep_link_path: null } };
    if (path === 'push-token') return { status: 200, body: { install_id: INSTALL_ID } };
    if (path === 'subscription') return { status: 200, body: { subscription_id: '01SUB', install_id: INSTALL_ID, linked: true, created: true } };
    if (path === 'ad-revenue') return { status: 200, body: { accepted: body.events.length, install_id: INSTALL_ID } };
    if (path === 'forget') return { status: 202, body: { id: ERASURE_ID, status: 'pending' } };
    return { status: 404, body: { error: 'not found' } };
  }
}

/** One phone: storage, OS events, clock and server shared by the SDKs of its launches. */
export class FakeDevice {
  readonly clock = new FakeClock();
  readonly storage = new FakeAsyncStorage();
  readonly os = new FakeOs();
  readonly server = new FakeServer(this.clock);
  readonly warnings: string[] = [];
  readonly attributions: Attribution[] = [];
  readonly deepLinks: DeepLinkEvent[] = [];
  platform: PlatformLike = { OS: 'android', Version: 34, constants: { Release: '14' } };
  deviceInfo: DeviceInfoLike | null = { getInstallReferrer: async () => 'utm_source=google-play&utm_medium=organic', getVersion: () => '3.2.1' };
  random = () => 0.5;
  private ids = 0;

  native(): NativeDeps {
    return { storage: this.storage, linking: this.os.linking, appState: this.os.appState, platform: this.platform, deviceInfo: this.deviceInfo, fetch: this.server.fetch };
  }

  /** A cold start of the app (the listeners of the last one are gone, as the process was). */
  async launch(config: Partial<ReactNativeConfig> = {}, initialUrl: string | null = null): Promise<ReactNativeSdk> {
    this.os.initialUrl = initialUrl;
    this.os.urlListeners.clear();
    this.os.stateListeners.clear();
    const sdk = await ReactNativeSdk.start(
      {
        sdkKey: 'sk_test',
        baseUrl: 'https://api.example',
        onAttribution: (a) => void this.attributions.push(a),
        onDeepLink: (link) => void this.deepLinks.push(link),
        ...config,
      },
      this.native(),
      { clock: this.clock, random: () => this.random(), newId: () => `device-${++this.ids}-0000`, warn: (message) => void this.warnings.push(message) },
    );
    await settle();
    return sdk;
  }
}
