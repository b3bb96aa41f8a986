import UAParser from 'ua-parser-js';
import { setBounded } from '../../shared/cache';

export type DeviceType = 'mobile' | 'tablet' | 'desktop' | 'smarttv' | 'console' | 'wearable' | 'embedded';

export interface ParsedUserAgent {
  /** ua-parser-js names: iOS, Android, Windows, Mac OS, Linux, Chromium OS, Tizen ... */
  osFamily: string | null;
  osVersion: string | null;
  deviceType: DeviceType;
}

const DEVICE_TYPES = new Set<string>(['mobile', 'tablet', 'smarttv', 'console', 'wearable', 'embedded']);

/** ua-parser-js 1.x reads no more than the first 500 characters, so they are also the cache key. */
const PARSED_LENGTH = 500;

/**
 * Parsed user agents: parsing is costly and a campaign's clicks repeat few distinct strings. The
 * map is simply emptied when full: no eviction bookkeeping on the hot path.
 */
const CACHE_LIMIT = 10_000;
const cache = new Map<string, ParsedUserAgent>();

/** OS family and version, and a device type that defaults to desktop when the string names none. */
export function parseUserAgent(userAgent: string): ParsedUserAgent {
  const ua = userAgent.length > PARSED_LENGTH ? userAgent.slice(0, PARSED_LENGTH) : userAgent;
  const hit = cache.get(ua);
  if (hit) return hit;
  const parser = new UAParser(ua);
  const os = parser.getOS();
  const type = parser.getDevice().type;
  const parsed: ParsedUserAgent = Object.freeze({
    osFamily: os.name || null,
    osVersion: os.version || null,
    deviceType: type && DEVICE_TYPES.has(type) ? (type as DeviceType) : 'desktop',
  });
  setBounded(cache, CACHE_LIMIT, ua, parsed);
  return parsed;
}
