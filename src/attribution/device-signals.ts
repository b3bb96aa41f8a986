/**
 * What an install's platform says about the device, in the words the click pipeline stores
 * (ua-parser-js v1 OS names and device types), so clicks and installs can be compared.
 */

/** OS family per SDK platform; null where a browser on that device does not name its OS (Roku, Apple TV) or for web. */
const OS_FAMILY: Record<string, string | null> = {
  ios: 'iOS',
  android: 'Android',
  android_tv: 'Android',
  fire_tv: 'Android',
  samsung_tv: 'Tizen',
  lg_tv: 'webOS',
  windows: 'Windows',
  macos: 'Mac OS',
  playstation: 'PlayStation',
  xbox: 'Xbox',
  nintendo: 'Nintendo',
  tvos: null,
  roku: null,
  web: null,
};

/** Device type per platform; null where it is ambiguous (a phone or a tablet). */
const DEVICE_TYPE: Record<string, string | null> = {
  tvos: 'smarttv',
  android_tv: 'smarttv',
  fire_tv: 'smarttv',
  roku: 'smarttv',
  samsung_tv: 'smarttv',
  lg_tv: 'smarttv',
  windows: 'desktop',
  macos: 'desktop',
  playstation: 'console',
  xbox: 'console',
  nintendo: 'console',
};

/** The connected-TV platforms, measured through the household tier. */
export const CTV_PLATFORMS = ['roku', 'fire_tv', 'samsung_tv', 'lg_tv', 'android_tv', 'tvos'] as const;

export function osFamilyOf(platform: string): string | null {
  return OS_FAMILY[platform] ?? null;
}

export function deviceTypeOf(platform: string): string | null {
  return DEVICE_TYPE[platform] ?? null;
}

export function sameOsFamily(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
}

/**
 * The major OS version, when it carries information. Chrome's reduced user agent reports every
 * Android device as "Android 10", so that value on an Android click says nothing.
 */
function informativeMajor(version: string | null, family: string | null): number | null {
  if (!version) return null;
  const match = /^(\d+)/.exec(version.trim());
  if (!match) return null;
  if (family?.toLowerCase() === 'android' && version.trim() === '10') return null;
  return Number(match[1]);
}

export type SignalComparison = 'match' | 'mismatch' | 'unknown';

/** Major versions compared, since an OS can update between the click and the install only rarely within hours. */
export function compareOsVersion(installVersion: string | null, clickVersion: string | null, clickFamily: string | null): SignalComparison {
  const a = informativeMajor(installVersion, null);
  const b = informativeMajor(clickVersion, clickFamily);
  if (a === null || b === null) return 'unknown';
  return a === b ? 'match' : 'mismatch';
}

export function compareDeviceType(installType: string | null, clickType: string | null): SignalComparison {
  if (!installType || !clickType) return 'unknown';
  return installType.toLowerCase() === clickType.toLowerCase() ? 'match' : 'mismatch';
}
