import { FakeClock, settle } from '../../../core/test/support/fake-clock';
import { FakeServer } from '../../../core/test/support/fake-server';
import type { Attribution } from '../../../core/src';
import type { DeepLinkEvent, ReactNativeConfig } from '../../src/config';
import type { AsyncKeyValue, DeviceInfoLike, NativeDeps, PlatformLike } from '../../src/native';
import { ReactNativeSdk } from '../../src/sdk';

export { FakeClock, settle };
export { ERASURE_ID, FakeServer, INSTALL_ID, type Reply, type SeenRequest } from '../../../core/test/support/fake-server';

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
