import {
  type Attribution,
  type Clock,
  type ConsentStatus,
  type EventOptions,
  type Lifecycle,
  type OpenResponse,
  parseDeepLink,
  randomId,
  SdkCore,
  storeNamespace,
  systemClock,
} from '../../core/src';
import { adRevenueEvents, subscriptionBody, type AdRevenue, type Subscription } from './calls';
import type { AdvertisingInfo, CoarseConversionValue, DeepLinkEvent, Provider, ReactNativeConfig } from './config';
import { MirroredStorage } from './mirrored-storage';
import type { NativeDeps, Subscription as Listener } from './native';
import { updateConversionValue } from './skan';
import { SDK_VERSION } from './version';

/** What tests replace besides the native modules: time, randomness, ids, warnings. */
export interface RuntimeOptions {
  clock?: Clock;
  random?: () => number;
  newId?: () => string;
  warn?: (message: string, detail?: unknown) => void;
}

const PLATFORMS: Record<string, string> = { ios: 'ios', android: 'android' };

/**
 * One configured React Native SDK: the core on AsyncStorage, Linking and AppState, plus the
 * install's platform facts, deep link routing and the calls only an app makes.
 */
export class ReactNativeSdk {
  private current: string | null;
  /** Denying consent drops the advertising id for the rest of this launch. */
  private advertisingDropped = false;
  private readonly listeners: Listener[] = [];

  private readonly core: SdkCore;
  private readonly warn: (message: string, detail?: unknown) => void;

  private constructor(
    private readonly config: ReactNativeConfig,
    private readonly native: NativeDeps,
    private readonly storage: MirroredStorage,
    platform: string,
    initialUrl: string | null,
    options: RuntimeOptions,
  ) {
    this.current = initialUrl;
    this.warn = options.warn ?? ((message: string, detail?: unknown) => console.warn(message, detail));
    // The core starts sending from its constructor: everything it calls back into is set by now.
    this.core = new SdkCore(
      { ...config, onAttribution: (attribution) => this.attributed(attribution) },
      {
        name: platform,
        sdkVersion: SDK_VERSION,
        currentUrl: () => this.current,
        installFields: () => this.installFields(),
        onDenied: () => (this.advertisingDropped = true),
      },
      {
        storage,
        clock: options.clock ?? systemClock,
        fetch: native.fetch,
        random: options.random ?? Math.random,
        newId: options.newId ?? randomId,
        warn: this.warn,
        lifecycle: appStateLifecycle(native),
      },
    );
    this.listeners.push(native.linking.addEventListener('url', (event) => this.opened(event.url)));
    if (initialUrl !== null) this.routeLaunchLink(initialUrl);
  }

  /** Reads storage and the launch URL, then starts: the install (or re-engagement) goes out once consent allows. */
  static async start(config: ReactNativeConfig, native: NativeDeps, options: RuntimeOptions = {}): Promise<ReactNativeSdk> {
    const platform = PLATFORMS[native.platform.OS];
    if (!platform) throw new TypeError(`svc: platform ${native.platform.OS} is not supported here (svc-web-sdk is for the web)`);
    if (!config || typeof config.sdkKey !== 'string' || config.sdkKey === '') throw new TypeError('svc: configure needs sdkKey');
    const warn = options.warn ?? ((message: string, detail?: unknown) => console.warn(message, detail));
    const storage = await MirroredStorage.load(native.storage, storeNamespace(config.sdkKey), warn);
    let initialUrl: string | null = null;
    try {
      initialUrl = (await native.linking.getInitialURL()) ?? null;
    } catch (error) {
      warn('svc: Linking.getInitialURL failed', error);
    }
    return new ReactNativeSdk(config, native, storage, platform, initialUrl, { ...options, warn });
  }

  consentStatus(): ConsentStatus {
    return this.core.consentStatus();
  }

  setConsent(granted: boolean): void {
    this.core.setConsent(granted);
  }

  logEvent(name: string, options?: EventOptions): void {
    this.core.logEvent(name, options);
  }

  flush(): Promise<void> {
    return this.core.flush();
  }

  /** Reports a re-open from `url` (a `url` event does it by itself). */
  open(url: string): Promise<OpenResponse> {
    return this.core.open(url);
  }

  /** Stores the push token on the install (replacing the last one): what uninstall checks push to. */
  setPushToken(token: string): Promise<{ install_id: string }> {
    if (typeof token !== 'string' || token === '' || token.length > 4096) throw new TypeError('svc: the push token is 1 to 4096 characters');
    return this.core.call('push-token', () => ({ push_token: token, platform: this.core.platformName() }));
  }

  /** Links a store subscription to the install; the server records its `trial_start` or `subscribe`. */
  logSubscription(subscription: Subscription): Promise<{ subscription_id: string; install_id: string | null; linked: boolean; created: boolean }> {
    const body = subscriptionBody(subscription);
    return this.core.call('subscription', (install) => ({ install_id: install.install_id, ...body }));
  }

  /** Ad revenue (one impression's or up to 100), stored as `ad_revenue` events. */
  logAdRevenue(revenue: AdRevenue | readonly AdRevenue[]): Promise<{ accepted: number; install_id: string | null }> {
    const events = adRevenueEvents(revenue);
    return this.core.call('ad-revenue', (install) => ({ install_id: install.install_id, events }));
  }

  /** iOS SKAdNetwork: the app's native function with the value checked; elsewhere nothing. */
  updateConversionValue(fine: number, coarse?: CoarseConversionValue, lockWindow = false): Promise<void> {
    return updateConversionValue(this.native.platform.OS, this.config.updateConversionValue, fine, coarse, lockWindow);
  }

  queueStats(): { queued: number; dropped: number } {
    return this.core.queueStats();
  }

  /** Stops listening; what is queued stays stored for the next launch. */
  stop(): void {
    this.core.stop();
    for (const listener of this.listeners.splice(0)) listener.remove();
  }

  /**
   * Asks the server to erase this device's data, whatever the consent (the core's forget()), then
   * stops and removes every key the SDK stored (device id, install, queue, consent, click).
   * Resolves to the erasure request's id, or null when the device never sent anything.
   */
  async forget(): Promise<string | null> {
    this.stop();
    this.current = null;
    const requestId = await this.core.forget();
    await this.storage.clear();
    return requestId;
  }

  /** Resolves when everything written so far is in AsyncStorage. */
  persisted(): Promise<void> {
    return this.storage.settled();
  }

  /** A `url` event: route it, keep its click id, and report the re-open of an installed app. */
  private opened(url: string): void {
    this.current = url;
    const link = parseDeepLink(url);
    if (link.deepLinkPath !== null) this.deepLink({ path: link.deepLinkPath, url, clickId: link.clickId, deferred: false });
    this.core.rememberUrl(url);
    if (this.core.consentStatus() === 'denied' || !this.core.installed()) return;
    this.core.open(url).then(
      (answer) => {
        if (link.deepLinkPath === null && answer.deep_link_path) this.deepLink({ path: answer.deep_link_path, url, clickId: link.clickId, deferred: false });
      },
      (error) => this.warn('svc: open failed', error),
    );
  }

  /** The launch link routes at once; the core reports it as a re-open when it carries a new click. */
  private routeLaunchLink(url: string): void {
    const link = parseDeepLink(url);
    if (link.deepLinkPath !== null) this.deepLink({ path: link.deepLinkPath, url, clickId: link.clickId, deferred: false });
  }

  private attributed(attribution: Attribution): void {
    try {
      this.config.onAttribution?.(attribution);
    } catch (error) {
      this.warn('svc: onAttribution threw', error);
    }
    if (attribution.kind !== 'install' || !attribution.firstLaunch) return;
    const path = attribution.install.attribution.deep_link_path;
    // A first launch from a link that had its own path has been routed already.
    const launch = this.current === null ? null : parseDeepLink(this.current);
    if (path && !launch?.deepLinkPath) this.deepLink({ path, url: null, clickId: attribution.install.attribution.click_id, deferred: true });
  }

  private deepLink(link: DeepLinkEvent): void {
    try {
      this.config.onDeepLink?.(link);
    } catch (error) {
      this.warn('svc: onDeepLink threw', error);
    }
  }

  /** The install's platform fields, each read on its own so one failing fact drops only itself. */
  private async installFields(): Promise<Record<string, unknown>> {
    const { platform, deviceInfo } = this.native;
    const fields: Record<string, unknown> = {
      os_version: platform.OS === 'android' && platform.constants?.Release ? platform.constants.Release : String(platform.Version),
      locale: intl(() => Intl.DateTimeFormat().resolvedOptions().locale),
      timezone: intl(() => Intl.DateTimeFormat().resolvedOptions().timeZone),
    };
    const appVersion = this.config.appVersion ?? (await this.read('getVersion', () => deviceInfo?.getVersion?.() ?? null));
    if (appVersion) fields.app_version = appVersion;
    if (platform.OS === 'android') {
      const referrer = await this.read('the install referrer', this.config.installReferrer ?? (() => deviceInfo?.getInstallReferrer?.() ?? null));
      // react-native-device-info answers "unknown" where it cannot read one.
      fields.install_referrer = referrer && referrer !== 'unknown' ? referrer : null;
    }
    if (platform.OS === 'ios' && this.config.appleAttributionToken) {
      fields.apple_attribution_token = await this.read('the attribution token', this.config.appleAttributionToken);
    }
    const advertising = this.advertisingDropped || !this.config.advertisingInfo ? null : await this.read<AdvertisingInfo>('the advertising id', this.config.advertisingInfo);
    if (advertising && !this.advertisingDropped) {
      fields.limit_ad_tracking = !advertising.trackingAllowed;
      if (advertising.trackingAllowed && advertising.id) fields.advertising_id = advertising.id;
    }
    return fields;
  }

  private async read<T>(what: string, provider: Provider<T>): Promise<T | null> {
    try {
      return (await provider()) ?? null;
    } catch (error) {
      this.warn(`svc: reading ${what} failed`, error);
      return null;
    }
  }
}

/** Hermes before 0.70 has no Intl on Android: then there is no locale or time zone to send. */
function intl(read: () => string | undefined): string | undefined {
  try {
    return typeof Intl === 'undefined' ? undefined : read() || undefined;
  } catch {
    return undefined;
  }
}

/** AppState as the core's life cycle: `background` flushes, `active` again is activity (a new session after 30 min). */
function appStateLifecycle(native: NativeDeps): Lifecycle {
  const on = (wanted: string) => (listener: () => void) => {
    const subscription = native.appState.addEventListener('change', (state) => {
      if (state === wanted) listener();
    });
    return () => subscription.remove();
  };
  return { onBackground: on('background'), onForeground: on('active'), onOnline: () => () => {} };
}
