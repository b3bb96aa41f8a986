import { beaconBody, type PageSignals } from './beacon';
import { clickIdFromUrl, type Clock, type FetchLike, type KeyValue, SdkCore, type SdkConfig } from '../../core/src';
import { SDK_VERSION } from './version';

export { FLUSH_AT_EVENTS, FLUSH_INTERVAL_MS } from '../../core/src';

/** Page life-cycle hooks; each answers a function that removes its listener. */
export interface PageHooks {
  onHide(listener: () => void): () => void;
  onShow(listener: () => void): () => void;
  onOnline(listener: () => void): () => void;
}

/** Everything the web SDK takes from its surroundings: a page (page.ts) or a test's fakes. */
export interface SdkEnv {
  storage: KeyValue | null;
  clock: Clock;
  fetch: FetchLike;
  random: () => number;
  newId: () => string;
  href: () => string;
  locale: () => string | undefined;
  hooks: PageHooks;
  signals: PageSignals;
  sendBeacon: (url: string, body: string) => void;
  warn: (message: string, detail?: unknown) => void;
}

/**
 * One configured web SDK: the core (consent, queue, install, opens) on a page, plus what only
 * a page has: the landing beacon sent once per page view when the page is first hidden.
 */
export class Sdk extends SdkCore {
  constructor(config: SdkConfig, env: SdkEnv) {
    const shownAt = env.clock.now();
    const landingClick = clickIdFromUrl(env.href());
    let beaconSent = false;
    super(
      config,
      {
        name: 'web',
        sdkVersion: SDK_VERSION,
        currentUrl: env.href,
        installFields: () => ({ locale: env.locale(), timezone: env.signals.timezone() }),
        onBackground: () => {
          if (!landingClick || beaconSent) return;
          beaconSent = true;
          const body = beaconBody(landingClick, env.signals, shownAt, env.clock.now());
          env.sendBeacon(`${config.baseUrl.replace(/\/+$/, '')}/api/protect/beacon`, JSON.stringify(body));
        },
      },
      {
        storage: env.storage,
        clock: env.clock,
        fetch: env.fetch,
        random: env.random,
        newId: env.newId,
        warn: env.warn,
        lifecycle: { onBackground: env.hooks.onHide, onForeground: env.hooks.onShow, onOnline: env.hooks.onOnline },
      },
    );
  }
}
