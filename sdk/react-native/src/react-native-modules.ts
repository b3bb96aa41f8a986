import AsyncStorage from '@react-native-async-storage/async-storage';
import { AppState, Linking, Platform } from 'react-native';
import type { DeviceInfoLike, NativeDeps } from './native';

// Metro bundles a require inside try/catch as an optional dependency: an app without
// react-native-device-info builds and runs, with the install referrer left to the app.
declare const require: (id: string) => unknown;

function optionalDeviceInfo(): DeviceInfoLike | null {
  try {
    const module = require('react-native-device-info') as { default?: DeviceInfoLike } & DeviceInfoLike;
    return module.default ?? module;
  } catch {
    return null;
  }
}

/** The app's real native modules. */
export function reactNativeDeps(): NativeDeps {
  return {
    storage: AsyncStorage,
    linking: Linking,
    appState: AppState,
    platform: Platform,
    deviceInfo: optionalDeviceInfo(),
    fetch: (url, init) => fetch(url, init),
  };
}
