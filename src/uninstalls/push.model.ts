/**
 * What a silent push to one install can tell the checker, whichever provider carried it
 * (docs/uninstalls.md, "What marks an install"). Only `unregistered` marks it uninstalled.
 */
export type PushOutcome =
  /** The provider took the push: as far as it knows the app is there. The check is recorded. */
  | { kind: 'delivered' }
  /** APNs 410 Unregistered, FCM 404 UNREGISTERED: the app is gone from the device. */
  | { kind: 'unregistered' }
  /** This token (or this app's topic) was refused for another reason: recorded, never marked. */
  | { kind: 'token_rejected'; reason: string }
  /** The provider refused this server (credentials, configuration): nothing recorded, the provider rests until next round. */
  | { kind: 'refused'; reason: string }
  /** Outage, throttling, timeout, network: nothing recorded, the install is tried again next round. */
  | { kind: 'unavailable'; reason: string };

export type Provider = 'apns' | 'fcm';

/** One install's push, with what the provider needs to route it. */
export interface PushTarget {
  token: string;
  /** The app's bundle id (APNs topic) or package name (FCM restricted_package_name), when the app has one. */
  bundleId: string | null;
}

export interface PushClient {
  readonly provider: Provider;
  send(target: PushTarget, signal: AbortSignal): Promise<PushOutcome>;
  /** Closes idle connections; a later send opens new ones. */
  close(): Promise<void>;
}

/** Platforms each provider reaches; Fire TV's push service (ADM) is not one of them. */
export const PROVIDER_PLATFORMS: Record<Provider, readonly string[]> = {
  apns: ['ios', 'tvos'],
  fcm: ['android', 'android_tv'],
};

/** The data key of the silent FCM message, so an app's own message handler can ignore it. */
export const FCM_DATA_KEY = 'svc_uninstall_check';
