import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { beaconSignals, isPlausibleScreen, type BeaconFacts } from '../../../src/protect/beacon/beacon-signals';
import { countryLanguages, countryTimeZones, knownTimeZone, languageSpokenInCountry, primaryLanguages, timeZoneInCountry } from '../../../src/protect/beacon/country-locale';
import { MIN_DWELL_MS, SCREEN_LIMITS } from '../../../src/tracking/risk/risk-signals';

/** A beacon from a Zurich visitor that shows nothing. */
const CLEAN: BeaconFacts = { screen: '390x844', timezone: 'Europe/Zurich', languages: 'de-CH,de,en', webdriver: false, dwell_ms: 12_000, scroll: 60 };
const NOTHING: BeaconFacts = { screen: null, timezone: null, languages: null, webdriver: null, dwell_ms: null, scroll: null };

describe('beaconSignals', () => {
  test('a clean beacon and an empty one raise nothing', () => {
    expect(beaconSignals(CLEAN, 'CH')).toEqual([]);
    expect(beaconSignals(NOTHING, 'CH')).toEqual([]);
    expect(beaconSignals(NOTHING, null)).toEqual([]);
  });

  test('each signal alone, present and absent', () => {
    const cases: [keyof BeaconFacts, unknown, unknown, string][] = [
      ['webdriver', true, false, 'webdriver'],
      ['dwell_ms', MIN_DWELL_MS - 1, MIN_DWELL_MS, 'no_dwell'],
      ['scroll', 0, 1, 'no_scroll'],
      ['screen', '0x0', '1920x1080', 'screen_invalid'],
      ['timezone', 'America/New_York', 'Europe/Zurich', 'timezone_mismatch'],
      ['languages', 'ja-JP,ja', 'fr-CH', 'language_mismatch'],
    ];
    for (const [field, present, absent, signal] of cases) {
      expect(beaconSignals({ ...CLEAN, [field]: present }, 'CH')).toEqual([signal as never]);
      expect(beaconSignals({ ...CLEAN, [field]: absent }, 'CH')).toEqual([]);
    }
  });

  test('without a country, time zone and languages say nothing', () => {
    expect(beaconSignals({ ...CLEAN, timezone: 'Asia/Tokyo', languages: 'ja' }, null)).toEqual([]);
  });

  test('an invalid zone, an offset or a country with no zones on record raises no timezone_mismatch', () => {
    for (const timezone of ['Mars/Olympus', '+05:30', '', 'Europe/Zurich ']) expect(beaconSignals({ ...NOTHING, timezone }, 'CH')).toEqual([]);
    expect(beaconSignals({ ...NOTHING, timezone: 'Asia/Tokyo' }, 'XK')).toEqual([]);
    expect(beaconSignals({ ...NOTHING, timezone: 'Asia/Tokyo' }, 'ZZ')).toEqual([]);
  });
});

describe('screen', () => {
  test('both sides within the limits is plausible, anything else is not (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 99_999 }), (width, height) => {
        const inside = (side: number) => side >= SCREEN_LIMITS.min && side <= SCREEN_LIMITS.max;
        expect(isPlausibleScreen(`${width}x${height}`)).toBe(inside(width) && inside(height));
      }),
    );
  });

  test('the limits themselves, and text that is no WIDTHxHEIGHT', () => {
    expect(isPlausibleScreen(`${SCREEN_LIMITS.min}x${SCREEN_LIMITS.max}`)).toBe(true);
    expect(isPlausibleScreen(`${SCREEN_LIMITS.min - 1}x800`)).toBe(false);
    expect(isPlausibleScreen(`800x${SCREEN_LIMITS.max + 1}`)).toBe(false);
    for (const text of ['800X600', '800x', 'x600', '800 x 600', '-800x600', '800x600x2']) expect(isPlausibleScreen(text)).toBe(false);
  });
});

describe('country time zones', () => {
  test('the zones of a country, in any letter case of its code', () => {
    expect(countryTimeZones('CH')).toEqual(['Europe/Zurich']);
    expect(countryTimeZones('us')).toContain('America/New_York');
    expect(countryTimeZones('XX')).toEqual([]);
    expect(countryTimeZones('USA')).toEqual([]);
  });

  test('old and new names of one zone match either way', () => {
    expect(timeZoneInCountry('Asia/Kolkata', 'IN')).toBe(true);
    expect(timeZoneInCountry('Asia/Calcutta', 'IN')).toBe(true);
    expect(timeZoneInCountry('Europe/Kyiv', 'UA')).toBe(true);
    expect(timeZoneInCountry('Europe/Kiev', 'UA')).toBe(true);
    expect(timeZoneInCountry('US/Eastern', 'US')).toBe(true);
    expect(timeZoneInCountry('America/Argentina/Buenos_Aires', 'AR')).toBe(true);
    expect(timeZoneInCountry('asia/kolkata', 'IN')).toBe(true);
  });

  test("a neighbour's zone with other rules since 1970 is a mismatch; UTC is one outside UTC countries", () => {
    expect(timeZoneInCountry('Europe/Berlin', 'CH')).toBe(false);
    expect(timeZoneInCountry('UTC', 'GB')).toBe(false);
    expect(timeZoneInCountry('UTC', 'US')).toBe(false);
    expect(timeZoneInCountry('Asia/Kolkata', 'PK')).toBe(false);
  });

  test('what is no IANA name is unknown', () => {
    for (const zone of ['+05:30', 'GMT+5', 'Mars/Olympus', '', ' UTC']) expect(knownTimeZone(zone)).toBeNull();
    expect(knownTimeZone('utc')).toBe('UTC');
    expect(timeZoneInCountry('Mars/Olympus', 'CH')).toBeNull();
  });
});

describe('country languages', () => {
  test('from countries-list', () => {
    expect(countryLanguages('CH')).toEqual(['de', 'fr', 'it']);
    expect(countryLanguages('ch')).toEqual(['de', 'fr', 'it']);
    expect(countryLanguages('XX')).toEqual([]);
    expect(countryLanguages('__proto__')).toEqual([]);
  });

  test('primary subtags of navigator.languages or an Accept-Language value', () => {
    expect(primaryLanguages('de-CH,de,en-US,en')).toEqual(['de', 'en']);
    expect(primaryLanguages('fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5')).toEqual(['fr', 'en']);
    expect(primaryLanguages('iw-IL,EN')).toEqual(['he', 'en']);
    expect(primaryLanguages('zh-Hant-TW')).toEqual(['zh']);
    expect(primaryLanguages('en_US,*,,')).toEqual([]);
  });

  test('one language spoken in the country is enough; individual languages count as their macrolanguage', () => {
    expect(languageSpokenInCountry('ja,it', 'CH')).toBe(true);
    expect(languageSpokenInCountry('ja,ko', 'CH')).toBe(false);
    expect(languageSpokenInCountry('fil-PH', 'PH')).toBe(true);
    expect(languageSpokenInCountry('nb-NO', 'SJ')).toBe(true);
    expect(languageSpokenInCountry('cmn', 'TW')).toBe(true);
  });

  test('nothing to compare is unknown', () => {
    expect(languageSpokenInCountry('*', 'CH')).toBeNull();
    expect(languageSpokenInCountry('de', 'AQ')).toBeNull();
    expect(languageSpokenInCountry('de', 'XX')).toBeNull();
  });
});
