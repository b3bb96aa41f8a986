/**
 * The native pieces the SDK uses, as small interfaces: the real modules in an app
 * (react-native-modules.ts), in-memory fakes in tests. Each is the subset of the module's own
 * API that React Native 0.68 and the current version both have.
 */

/** `@react-native-async-storage/async-storage` (v1 to v3 all have these four). */
export interface AsyncKeyValue {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  getAllKeys(): Promise<readonly string[]>;
}

/** Something a listener can be removed from: what `addEventListener` answers since 0.65. */
export interface Subscription {
  remove(): void;
}

/** react-native's `Linking`. */
export interface LinkingLike {
  getInitialURL(): Promise<string | null | undefined>;
  addEventListener(type: 'url', listener: (event: { url: string }) => void): Subscription;
}

/** react-native's `AppState`: `active`, `background`, `inactive` (iOS, between the two). */
export interface AppStateLike {
  addEventListener(type: 'change', listener: (state: string) => void): Subscription;
}

/** What the SDK reads of react-native's `Platform`. */
export interface PlatformLike {
  OS: string;
  Version: number | string;
  /** Android's `constants.Release` is the OS version ("14"); `Version` there is the API level. */
  constants?: { Release?: string; [key: string]: unknown };
}

/** What the SDK reads of `react-native-device-info` when the app has it. */
export interface DeviceInfoLike {
  getInstallReferrer?(): Promise<string>;
  getVersion?(): string;
}

/** Everything native the SDK runs on. */
export interface NativeDeps {
  storage: AsyncKeyValue;
  linking: LinkingLike;
  appState: AppStateLike;
  platform: PlatformLike;
  /** null when the app does not have react-native-device-info. */
  deviceInfo: DeviceInfoLike | null;
  fetch: (url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }) => Promise<{
    ok: boolean;
    status: number;
    headers: { get(name: string): string | null };
    json(): Promise<unknown>;
  }>;
}
