import { languageSpokenInCountry, timeZoneInCountry } from './country-locale';
import { MIN_DWELL_MS, SCREEN_LIMITS, type RiskSignal } from '../../tracking/risk/risk-signals';

/**
 * The beacon family of risk signals that one click's beacon shows by itself, against the
 * country of the click's IP (docs/protect.md, "Signals" of the beacon). A field not reported raises
 * nothing. fingerprint_reuse needs the organization's other beacons: beacon.service.ts adds it.
 */
export interface BeaconFacts {
  screen: string | null;
  timezone: string | null;
  languages: string | null;
  webdriver: boolean | null;
  dwell_ms: number | null;
  scroll: number | null;
}

export function beaconSignals(beacon: BeaconFacts, country: string | null): RiskSignal[] {
  const found: RiskSignal[] = [];
  if (beacon.webdriver === true) found.push('webdriver');
  if (beacon.dwell_ms !== null && beacon.dwell_ms < MIN_DWELL_MS) found.push('no_dwell');
  if (beacon.scroll === 0) found.push('no_scroll');
  if (beacon.screen !== null && !isPlausibleScreen(beacon.screen)) found.push('screen_invalid');
  if (country !== null && beacon.timezone !== null && timeZoneInCountry(beacon.timezone, country) === false) found.push('timezone_mismatch');
  if (country !== null && beacon.languages !== null && languageSpokenInCountry(beacon.languages, country) === false) found.push('language_mismatch');
  return found;
}

/** WIDTHxHEIGHT with both sides within SCREEN_LIMITS; anything else, 0x0 included, is no real screen. */
export function isPlausibleScreen(screen: string): boolean {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(screen);
  if (!match) return false;
  const inRange = (side: string) => Number(side) >= SCREEN_LIMITS.min && Number(side) <= SCREEN_LIMITS.max;
  return inRange(match[1]!) && inRange(match[2]!);
}
