import type { PageSignals } from '../../src/beacon';
import { FakeClock, settle } from '../../../core/test/support/fake-clock';
import { Sdk, type SdkEnv } from '../../src/sdk';
import type { KeyValue } from '../../src/storage';
import type { Attribution, SdkConfig } from '../../src/types';

export { FakeClock, settle } from '../../../core/test/support/fake-clock';

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

export interface SeenRequest {
  path: string;
  body: any;
  headers: Record<string, string>;
  keepalive: boolean;
  at: number;
}

/** An answer, or `'network'` for a transport error. */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'network';

export const INSTALL_ANSWER = {
  install_id: '01INSTALL0000000000000000A',
  attribution: { method: 'ORGANIC', campaign: null, click_id: null, deep_link_path: null },
  is_reattribution: false,
};

export const ERASURE_ID = '01ERASURE0000000000000000A';

/** The SDK endpoints as a fake fetch: records every request; `script` answers, else a success. */
export class FakeServer {
  readonly requests: SeenRequest[] = [];
  /** Answers to use first, per path, in order. */
  readonly script = new Map<string, Reply[]>();

  constructor(private readonly clock: FakeClock) {}

  answer(path: string, ...replies: Reply[]): void {
    this.script.set(path, [...(this.script.get(path) ?? []), ...replies]);
  }

  to(path: string): SeenRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Event names in the batches the server accepted (2xx), in order. */
  delivered(): string[] {
    return this.accepted.flatMap((body) => body.events.map((event: { name: string }) => event.name));
  }

  private readonly accepted: any[] = [];

  readonly fetch = async (url: string, init: RequestInit): Promise<Response> => {
    const path = new URL(url).pathname.replace('/api/sdk/v1/', '');
    const body = JSON.parse(String(init.body));
    this.requests.push({ path, body, headers: init.headers as Record<string, string>, keepalive: init.keepalive === true, at: this.clock.now() });
    const reply = this.script.get(path)?.shift() ?? this.success(path, body);
    if (reply === 'network') throw new TypeError('Failed to fetch');
    if (path === 'events' && reply.status < 300) this.accepted.push(body);
    return new Response(JSON.stringify(reply.body ?? {}), { status: reply.status, headers: { 'content-type': 'application/json', ...reply.headers } });
  };

  private success(path: string, body: any): Reply {
    if (path === 'install') return { status: 201, body: { ...INSTALL_ANSWER, attribution: { ...INSTALL_ANSWER.attribution, method: body.click_id ? 'CLICK_ID' : 'ORGANIC', click_id: body.click_id } } };
    if (path === 'events') return { status: 200, body: { accepted: body.events.length } };
    if (path === 'open') return { status: 200, body: { reengagement_id: '01REENGAGE', attributed: body.click_id !== null, campaign_id: null, deep_link_path: null } };
    if (path === 'forget') return { status: 202, body: { id: ERASURE_ID, status: 'pending' } };
    return { status: 404, body: { error: 'not found' } };
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
