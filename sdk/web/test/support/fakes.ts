import type { PageSignals } from '../../src/beacon';
import { FakeClock, settle } from '../../../core/test/support/fake-clock';
import { Sdk, type SdkEnv } from '../../src/sdk';
import type { KeyValue } from '../../src/storage';
import type { Attribution, SdkConfig } from '../../src/types';

export { FakeClock, settle } from '../../../core/test/support/fake-clock';
import { FakeServer } from '../../../core/test/support/fake-server';
export { ERASURE_ID, FakeServer, INSTALL_ANSWER, type Reply, type SeenRequest } from '../../../core/test/support/fake-server';

/** localStorage's behaviour over a Map; `failWrites` makes every write throw (quota, blocked). */
export class FakeStorage implements KeyValue {
  readonly map = new Map<string, string>();
  failWrites = false;

  getItem(key: string): string | null {
    return this.map.get(key) ?? null;
  }

  setItem(key: string, value: string): void {
    if (this.failWrites) throw new Error('QuotaExceededError');
    this.map.set(key, value);
  }

  removeItem(key: string): void {
    this.map.delete(key);
  }
}

/** The page's life cycle, fired by the test. */
export class FakePage {
  readonly listeners = { hide: new Set<() => void>(), show: new Set<() => void>(), online: new Set<() => void>() };
  href = 'https://shop.example/landing';

  hide(): void {
    for (const listener of this.listeners.hide) listener();
  }

  show(): void {
    for (const listener of this.listeners.show) listener();
  }

  online(): void {
    for (const listener of this.listeners.online) listener();
  }
}

export const SIGNALS: PageSignals = {
  screen: () => '1280x720',
  timezone: () => 'Europe/Berlin',
  languages: () => 'de-DE,de,en',
  webdriver: () => false,
  touch: () => false,
  scrollDepth: () => 40,
  fingerprint: () => '0123456789abcdef',
};

/** One browser: storage, clock, server and page shared by the SDKs of its page views. */
export class FakeBrowser {
  readonly clock = new FakeClock();
  readonly storage = new FakeStorage();
  readonly server = new FakeServer(this.clock);
  readonly page = new FakePage();
  readonly beacons: { url: string; body: any }[] = [];
  readonly warnings: string[] = [];
  readonly attributions: Attribution[] = [];
  random = () => 0.5;
  private ids = 0;

  env(): SdkEnv {
    const subscribe = (set: Set<() => void>) => (listener: () => void) => {
      set.add(listener);
      return () => set.delete(listener);
    };
    return {
      storage: this.storage,
      clock: this.clock,
      fetch: this.server.fetch,
      random: () => this.random(),
      newId: () => `device-${++this.ids}-0000`,
      href: () => this.page.href,
      locale: () => 'de-DE',
      hooks: { onHide: subscribe(this.page.listeners.hide), onShow: subscribe(this.page.listeners.show), onOnline: subscribe(this.page.listeners.online) },
      signals: SIGNALS,
      sendBeacon: (url, body) => void this.beacons.push({ url, body: JSON.parse(body) }),
      warn: (message) => void this.warnings.push(message),
    };
  }

  /** A page view at `href` (the current one by default) configured with `config`. */
  async load(config: Partial<SdkConfig> = {}, href?: string): Promise<Sdk> {
    if (href) this.page.href = href;
    for (const set of Object.values(this.page.listeners)) set.clear();
    const sdk = new Sdk({ sdkKey: 'sk_test', baseUrl: 'https://api.example', onAttribution: (a) => this.attributions.push(a), ...config }, this.env());
    await settle();
    return sdk;
  }
}
