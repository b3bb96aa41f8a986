/**
 * The React Native SDK of svc-attribution (docs/sdk.md): one SDK per app, configured once.
 * `await configure({ sdkKey, baseUrl })` at start-up; calls made before it has finished wait for it.
 */
import { queuedEvent, type ConsentStatus, type EventOptions, type OpenResponse } from '../../core/src';
import type { AdRevenue, Subscription } from './calls';
import type { CoarseConversionValue, ReactNativeConfig } from './config';
import { reactNativeDeps } from './react-native-modules';
import { ReactNativeSdk } from './sdk';

export type { Attribution, ConsentStatus, EventOptions, InstallResponse, OpenResponse } from '../../core/src';
export type { AdRevenue, Subscription } from './calls';
export type { AdvertisingInfo, CoarseConversionValue, ConversionValueUpdater, DeepLinkEvent, Provider, ReactNativeConfig } from './config';
export { SDK_VERSION } from './version';

let starting: Promise<ReactNativeSdk> | undefined;
let ready: ReactNativeSdk | undefined;

function sdk(): Promise<ReactNativeSdk> {
  if (!starting) return Promise.reject(new Error('svc: call configure() first'));
  return starting;
}

/** Starts the SDK; a second call replaces the first configuration. */
export function configure(config: ReactNativeConfig): Promise<void> {
  const previous = starting;
  ready = undefined;
  const next = (previous ? previous.then((old) => old.stop(), () => {}) : Promise.resolve()).then(() => ReactNativeSdk.start(config, reactNativeDeps()));
  starting = next;
  return next.then((started) => {
    if (starting === next) ready = started;
  });
}

/** `pending`, `granted` or `denied`; known once configure() has resolved. */
export function consentStatus(): ConsentStatus {
  if (!ready) throw new Error('svc: consentStatus() needs configure() to have finished');
  return ready.consentStatus();
}

export function setConsent(granted: boolean): Promise<void> {
  if (typeof granted !== 'boolean') throw new TypeError('svc: setConsent takes true or false');
  return sdk().then((s) => s.setConsent(granted));
}

/** Queues an event; a bad one throws a TypeError at once. */
export function logEvent(name: string, options?: EventOptions): void {
  queuedEvent(name, options, 0);
  if (ready) ready.logEvent(name, options);
  else void sdk().then((s) => s.logEvent(name, options));
}

export function flush(): Promise<void> {
  return sdk().then((s) => s.flush());
}

export function open(url: string): Promise<OpenResponse> {
  return sdk().then((s) => s.open(url));
}

export function setPushToken(token: string): Promise<{ install_id: string }> {
  return sdk().then((s) => s.setPushToken(token));
}

export function logSubscription(subscription: Subscription): Promise<{ subscription_id: string; install_id: string | null; linked: boolean; created: boolean }> {
  return sdk().then((s) => s.logSubscription(subscription));
}

export function logAdRevenue(revenue: AdRevenue | readonly AdRevenue[]): Promise<{ accepted: number; install_id: string | null }> {
  return sdk().then((s) => s.logAdRevenue(revenue));
}

export function updateConversionValue(fine: number, coarse?: CoarseConversionValue, lockWindow?: boolean): Promise<void> {
  return sdk().then((s) => s.updateConversionValue(fine, coarse, lockWindow));
}

/** Events waiting in the queue, and how many the 500-event cap has dropped. */
export function queueStats(): Promise<{ queued: number; dropped: number }> {
  return sdk().then((s) => s.queueStats());
}

/**
 * Erases this device's data on the server (whatever the consent), stops the SDK and removes
 * everything it stored on the device; configure() starts afresh. Resolves to the erasure
 * request's id, or null when nothing was configured or sent.
 */
export async function forget(): Promise<string | null> {
  const current = starting;
  starting = undefined;
  ready = undefined;
  return current ? (await current).forget() : null;
}
