import type { SdkConfig } from '../../core/src';

/** The advertising id (IDFA, GAID) and whether the user allows tracking with it; passed by the app. */
export interface AdvertisingInfo {
  id: string | null;
  trackingAllowed: boolean;
}

/** A deep link to route to: from the link that opened the app, or deferred through the install. */
export interface DeepLinkEvent {
  /** `deep_link_path` of the link, or the one the server returned; null when neither has one. */
  path: string | null;
  /** The URL that opened the app; null for a deferred deep link. */
  url: string | null;
  clickId: string | null;
  /** True when it came from the install's attribution (the app was installed through the link). */
  deferred: boolean;
}

export type CoarseConversionValue = 'low' | 'medium' | 'high';

/**
 * A native SKAdNetwork update the app provides (docs/sdk.md names two community modules):
 * `fine` 0 to 63; `coarse` and `lockWindow` are the iOS 16.1 (SKAdNetwork 4) arguments.
 */
export type ConversionValueUpdater = (fine: number, coarse: CoarseConversionValue | undefined, lockWindow: boolean) => unknown;

/** A platform fact the app hands over, synchronously or not; null (or a throw) when it has none. */
export type Provider<T> = () => T | null | Promise<T | null>;

export interface ReactNativeConfig extends SdkConfig {
  /** Routes a deep link: the launch link's, a later link's, and the deferred one of a first install. */
  onDeepLink?: (link: DeepLinkEvent) => void;
  /** The app's version; default react-native-device-info's getVersion when the app has it. */
  appVersion?: string;
  /** Android: the raw Play install referrer; default react-native-device-info's getInstallReferrer. */
  installReferrer?: Provider<string>;
  /** The advertising id and its consent; never required, sent only when tracking is allowed. */
  advertisingInfo?: Provider<AdvertisingInfo>;
  /** iOS 14.3+: the AdServices attribution token, from a native module of the app. */
  appleAttributionToken?: Provider<string>;
  /** iOS: the native SKAdNetwork update behind updateConversionValue. */
  updateConversionValue?: ConversionValueUpdater;
}
