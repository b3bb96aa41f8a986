import { INSTALL_RETRY, EVENTS_RETRY, type RetryPolicy } from './backoff';
import { clickIdFromUrl, keptClick, rememberClick } from './click-id';
import { pause, Waiter, type Clock } from './clock';
import { consentChange, initialConsent, type ConsentStatus } from './consent';
import { queuedEvent, type EventOptions } from './events';
import { EventQueue } from './queue';
import { sendWithRetry } from './retry';
import { touchSession } from './session';
import { createStore, storeNamespace, type KeyValue, type Store } from './storage';
import { createTransport, type FetchLike, type Outcome, type Post } from './transport';
import type { Attribution, InstallResponse, OpenResponse, SdkConfig } from './types';

/** The names the core keeps under its namespace; forget() removes them all. */
const STORED_NAMES = ['activity', 'click', 'consent', 'device', 'first_seen', 'install', 'queue', 'reported_click'] as const;

/** The spec's flush triggers besides the app going to the background. */
export const FLUSH_INTERVAL_MS = 10_000;
export const FLUSH_AT_EVENTS = 20;

/** The app's or page's life cycle; each hook answers a function that removes its listener. */
export interface Lifecycle {
  /** The app went to the background, or the page is hidden or going away. */
  onBackground(listener: () => void): () => void;
  /** The app or page is in front again. */
  onForeground(listener: () => void): () => void;
  /** The network is back (a browser says so; an app may never). */
  onOnline(listener: () => void): () => void;
}

/** Everything the core takes from its surroundings: a browser, React Native, or a test's fakes. */
export interface CoreEnv {
  storage: KeyValue | null;
  clock: Clock;
  fetch: FetchLike;
  random: () => number;
  newId: () => string;
  lifecycle: Lifecycle;
  warn: (message: string, detail?: unknown) => void;
}

/** What differs between the SDKs: the install's platform facts and what a URL means. */
export interface Platform {
  /** The install's `platform`: `web`, `ios`, `android`. */
  name: string;
  sdkVersion: string;
  /** The URL the SDK starts with (the page's, the app's launch deep link), or null; open()'s default. */
  currentUrl(): string | null;
  /** The install request's platform fields (versions, locale, referrer, advertising id), read when it is sent. */
  installFields(): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Going to the background with consent, before the flush (the web's landing beacon). */
  onBackground?(): void;
  /** Consent was denied: drop what only consent allowed holding (an advertising id). */
  onDenied?(): void;
}

/**
 * One configured SDK, whatever the platform: the consent machine, the queue and its flushes,
 * sessions, the install and opens with the attribution callback.
 */
export class SdkCore {
  private status: ConsentStatus;
  private readonly store: Store;
  private readonly queue: EventQueue;
  private readonly waiter: Waiter;
  private readonly post: Post;
  /** The URL this launch started with, and its click id: an installed device's re-engagement. */
  private readonly launchUrl: string | null;
  private readonly landingClick: string | null;
  private heldUntil = 0;
  private installing: Promise<InstallResponse | undefined> | undefined;
  private installRefused = false;
  private flushing: Promise<void> | undefined;
  private stopped = false;
  private timer: unknown;
  private readonly removers: (() => void)[];
  private consentWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(
    private readonly config: SdkConfig,
    private readonly platform: Platform,
    private readonly env: CoreEnv,
  ) {
    checkConfig(config);
    this.store = createStore(env.storage, storeNamespace(config.sdkKey));
    this.queue = new EventQueue(this.store);
    this.waiter = new Waiter(env.clock);
    this.post = createTransport({ baseUrl: config.baseUrl.replace(/\/+$/, ''), sdkKey: config.sdkKey, fetch: env.fetch, clock: env.clock });
    this.status = initialConsent(config.requireConsent === true, this.store.get('consent'));
    this.launchUrl = platform.currentUrl();
    this.landingClick = this.launchUrl === null ? null : clickIdFromUrl(this.launchUrl);
    if (this.status !== 'denied') this.arrive();
    this.removers = [
      env.lifecycle.onBackground(() => this.backgrounded()),
      env.lifecycle.onForeground(() => {
        if (this.status !== 'denied') this.activity();
      }),
      env.lifecycle.onOnline(() => void this.flush()),
    ];
    this.schedule();
    if (this.status === 'granted') void this.launch();
  }

  consentStatus(): ConsentStatus {
    return this.status;
  }

  /**
   * Records the user's decision (persisted; a later call replaces it). Granting sends the install
   * and flushes the queue; denying stops sending, clears the queue, forgets the kept click and
   * the session (a later grant starts a new one), and drops any advertising id.
   */
  setConsent(granted: boolean): void {
    if (typeof granted !== 'boolean') throw new TypeError('svc: setConsent takes true or false');
    const decision = granted ? 'granted' : 'denied';
    const change = consentChange(this.status, decision);
    this.store.set('consent', decision);
    this.status = decision;
    const waiters = this.consentWaiters;
    this.consentWaiters = [];
    if (change.forget) {
      this.queue.clear();
      this.store.remove('click');
      this.store.remove('activity');
      this.platform.onDenied?.();
      this.waiter.nudge();
      for (const waiter of waiters) waiter.reject(new Error('svc: consent denied'));
    }
    if (change.start) {
      this.arrive();
      for (const waiter of waiters) waiter.resolve();
      void this.launch();
    }
  }

  /** Queues an event (after a `session_start` when a session begins); a bad one throws a TypeError. */
  logEvent(name: string, options?: EventOptions): void {
    const event = queuedEvent(name, options, this.env.clock.now());
    if (this.status === 'denied' || this.stopped) return;
    this.activity();
    this.queue.add(event);
    if (this.status === 'granted' && this.queue.size() >= FLUSH_AT_EVENTS) void this.startFlush();
  }

  /**
   * Sends the queue now (retrying waits end early). Resolves when this flush ends: the queue
   * sent, or a batch given up on and kept for the next one. Without consent it sends nothing.
   */
  flush(): Promise<void> {
    this.waiter.nudge();
    return this.startFlush();
  }

  /** Reports a re-engagement open of `url` (default: the current URL); the attribution callback gets the answer too. */
  async open(url?: string): Promise<OpenResponse> {
    const target = url ?? this.platform.currentUrl() ?? '';
    await this.consented();
    const install = await this.ensureInstalled();
    if (!install) throw new Error('svc: the install call has not succeeded');
    const now = this.env.clock.now();
    this.activity();
    const clickId = clickIdFromUrl(target);
    if (clickId) rememberClick(this.store, target, now);
    const payload = { device_id: this.deviceId(), url: target !== '' && target.length <= 4096 ? target : null, click_id: clickId, occurred_at: new Date(now).toISOString() };
    const outcome = await this.send('open', payload, EVENTS_RETRY);
    if (outcome.kind !== 'ok') throw new Error(`svc: open failed (status ${outcome.status})`);
    const response = outcome.body as OpenResponse;
    if (clickId) this.store.set('reported_click', clickId);
    this.attributed({ kind: 'open', open: response });
    return response;
  }

  /**
   * Sends one call about the install (push token, subscription, ad revenue) once consent allows
   * and the install is known, with the event batches' retry rule; `device_id` is added to what
   * `fields` makes of the install. The answer's body is returned; a refusal or a spent retry throws.
   */
  async call<T>(path: string, fields: (install: InstallResponse) => Record<string, unknown>): Promise<T> {
    await this.consented();
    const install = await this.ensureInstalled();
    if (!install) throw new Error('svc: the install call has not succeeded');
    const outcome = await this.send(path, { device_id: this.deviceId(), ...fields(install) }, EVENTS_RETRY);
    if (outcome.kind !== 'ok') throw new Error(`svc: ${path} failed (status ${outcome.status})`);
    return outcome.body as T;
  }

  /** Keeps the click id of a URL the app was opened with (parsed whatever the consent, never sent while pending). */
  rememberUrl(url: string): void {
    if (this.status !== 'denied' && !this.stopped) rememberClick(this.store, url, this.env.clock.now());
  }

  /** The install's `platform`, as sent. */
  platformName(): string {
    return this.platform.name;
  }

  /** The install's answer once it has one (kept across launches). */
  installed(): InstallResponse | undefined {
    return this.store.get<InstallResponse>('install');
  }

  queueStats(): { queued: number; dropped: number } {
    return { queued: this.queue.size(), dropped: this.queue.dropped() };
  }

  /**
   * The right to erasure, whatever the consent: stops the SDK, drops the queue, asks the server to
   * erase this device's data (POST /api/sdk/v1/forget, with the event batches' retry rule), then
   * removes everything the SDK stored. Resolves to the erasure request's id, or null when this
   * device never sent anything. A refusal or a spent retry throws and keeps the device id, so a
   * later forget() can ask again.
   */
  async forget(): Promise<string | null> {
    this.stop();
    this.queue.clear();
    const deviceId = this.store.get<string>('device');
    if (typeof deviceId === 'string' && deviceId.length >= 8 && deviceId.length <= 128) {
      const outcome = await sendWithRetry(() => this.post('forget', { device_id: deviceId }), EVENTS_RETRY, {
        clock: this.env.clock,
        waiter: this.waiter,
        random: this.env.random,
        stopped: () => false,
        holdUntil: (time) => (this.heldUntil = Math.max(this.heldUntil, time)),
      });
      if (outcome.kind !== 'ok') throw new Error(`svc: forget failed (status ${outcome.status})`);
      this.clearStored();
      const id = (outcome.body as { id?: unknown } | null)?.id;
      return typeof id === 'string' ? id : null;
    }
    this.clearStored();
    return null;
  }

  /** Every key this SDK writes (storage.ts, queue.ts, session.ts, click-id.ts). */
  private clearStored(): void {
    for (const name of STORED_NAMES) this.store.remove(name);
  }

  /** Removes listeners and timers; what is queued stays stored for the next launch. */
  stop(): void {
    this.stopped = true;
    this.env.clock.clearTimeout(this.timer);
    for (const remove of this.removers) remove();
    this.waiter.nudge();
  }

  /** A launch or consent granted: keep the landing click, note the activity. */
  private arrive(): void {
    const now = this.env.clock.now();
    const url = this.platform.currentUrl();
    if (url !== null) rememberClick(this.store, url, now);
    if (this.store.get('first_seen') === undefined) this.store.set('first_seen', now);
    this.activity();
  }

  private activity(): void {
    const now = this.env.clock.now();
    if (touchSession(this.store, now)) this.queue.add({ name: 'session_start', occurred_at: new Date(now).toISOString() });
  }

  /** Once consent allows: install (or re-engagement open), one attribution callback, then a flush. */
  private async launch(): Promise<void> {
    const known = this.store.get<InstallResponse>('install');
    const install = await this.ensureInstalled();
    if (!install) return;
    if (known && this.landingClick && this.landingClick !== this.store.get('reported_click')) {
      await this.open(this.launchUrl ?? undefined).catch((error) => this.env.warn('svc: open failed', error));
    } else if (known) {
      this.attributed({ kind: 'install', firstLaunch: false, install: known });
    }
    await this.startFlush();
  }

  private ensureInstalled(): Promise<InstallResponse | undefined> {
    const known = this.store.get<InstallResponse>('install');
    if (known) return Promise.resolve(known);
    if (this.installRefused || this.status !== 'granted' || this.stopped) return Promise.resolve(undefined);
    if (!this.installing) this.installing = this.install().finally(() => (this.installing = undefined));
    return this.installing;
  }

  private async install(): Promise<InstallResponse | undefined> {
    const click = keptClick(this.store, this.env.clock.now());
    let fields: Record<string, unknown>;
    try {
      fields = await this.platform.installFields();
    } catch (error) {
      // A platform fact that cannot be read (a native module failing) is left out, not fatal.
      this.env.warn('svc: reading the install fields failed', error);
      fields = {};
    }
    if (this.status !== 'granted' || this.stopped) return undefined;
    const payload = {
      device_id: this.deviceId(),
      platform: this.platform.name,
      sdk_version: this.platform.sdkVersion,
      installed_at: new Date(this.store.get<number>('first_seen') ?? this.env.clock.now()).toISOString(),
      click_id: click ? click.id : null,
      gclid: click && click.gclid ? click.gclid : null,
      ...fields,
    };
    const outcome = await this.send('install', payload, INSTALL_RETRY);
    if (outcome.kind === 'reject' || (outcome.kind === 'ok' && typeof (outcome.body as InstallResponse | null)?.install_id !== 'string')) {
      // A wrong key or an app of another platform: nothing more is sent until the next launch.
      this.installRefused = true;
      this.env.warn(`svc: the install call was refused (status ${outcome.status})`, outcome.body);
      return undefined;
    }
    if (outcome.kind !== 'ok') return undefined;
    const response = outcome.body as InstallResponse;
    this.store.set('install', response);
    if (click) this.store.set('reported_click', click.id);
    if (this.status === 'granted') this.attributed({ kind: 'install', firstLaunch: true, install: response });
    return response;
  }

  /** The timer, the 20th event and the background flush, without cutting a backoff short. */
  private startFlush(): Promise<void> {
    if (this.status !== 'granted' || this.stopped) return Promise.resolve();
    if (!this.flushing) this.flushing = this.drain().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async drain(): Promise<void> {
    const install = await this.ensureInstalled();
    if (!install) return;
    while (this.status === 'granted' && !this.stopped) {
      const batch = this.queue.take();
      if (batch.length === 0) return;
      const outcome = await this.send('events', { device_id: this.deviceId(), install_id: install.install_id, events: batch }, EVENTS_RETRY);
      if (outcome.kind === 'ok') continue;
      if (outcome.kind === 'reject') {
        // Never retried (spec): the events are dropped, not replayed.
        this.env.warn(`svc: ${batch.length} events refused (status ${outcome.status})`, outcome.body);
        continue;
      }
      if (this.status === 'granted') this.queue.putBack(batch);
      return;
    }
  }

  /** One call with the retry rule; no request leaves before a 429's Retry-After has passed. */
  private send(path: string, payload: unknown, policy: RetryPolicy): Promise<Outcome> {
    const stopped = () => this.status !== 'granted' || this.stopped;
    const attempt = async (): Promise<Outcome> => {
      const wait = this.heldUntil - this.env.clock.now();
      if (wait > 0) await pause(this.env.clock, wait);
      return stopped() ? { kind: 'retry', status: 0 } : this.post(path, payload);
    };
    return sendWithRetry(attempt, policy, {
      clock: this.env.clock,
      waiter: this.waiter,
      random: this.env.random,
      stopped,
      holdUntil: (time) => (this.heldUntil = Math.max(this.heldUntil, time)),
    });
  }

  /** Going to the background (a page hidden or going away): the platform's part, then a flush. */
  private backgrounded(): void {
    if (this.status !== 'granted' || this.stopped) return;
    this.platform.onBackground?.();
    void this.startFlush();
  }

  private schedule(): void {
    this.timer = this.env.clock.setTimeout(() => {
      if (this.stopped) return;
      if (this.status === 'granted' && this.queue.size() > 0) void this.startFlush();
      this.schedule();
    }, FLUSH_INTERVAL_MS);
  }

  private consented(): Promise<void> {
    if (this.status === 'granted') return Promise.resolve();
    if (this.status === 'denied' || this.stopped) return Promise.reject(new Error('svc: consent denied'));
    return new Promise((resolve, reject) => this.consentWaiters.push({ resolve, reject }));
  }

  private deviceId(): string {
    let id = this.store.get<string>('device');
    if (typeof id !== 'string' || id.length < 8 || id.length > 128) {
      id = this.env.newId();
      this.store.set('device', id);
    }
    return id;
  }

  private attributed(attribution: Attribution): void {
    try {
      this.config.onAttribution?.(attribution);
    } catch (error) {
      this.env.warn('svc: onAttribution threw', error);
    }
  }
}

/** An absolute http(s) URL with a host: checked by pattern, React Native having no full URL class. */
const BASE_URL = /^\s*https?:\/\/[^\s/?#]+(?:[/?#]\S*)?\s*$/i;

function checkConfig(config: SdkConfig): void {
  if (!config || typeof config.sdkKey !== 'string' || config.sdkKey === '') throw new TypeError('svc: configure needs sdkKey');
  if (typeof config.baseUrl !== 'string' || !BASE_URL.test(config.baseUrl)) throw new TypeError('svc: baseUrl must be an absolute http(s) URL');
}
