import { countries } from 'countries-list';

/**
 * The time zones and languages of a country (ISO 3166 alpha-2, as click enrichment stores it),
 * for the beacon's timezone_mismatch and language_mismatch (docs/protect.md). Zones come
 * from the runtime's ICU data, languages from the `countries-list` package.
 * Each answer is true, false, or null when it cannot be told (unknown country, zone or tag).
 */

const COUNTRY_CODE = /^[A-Z]{2}$/;
/** An IANA name (Europe/Zurich, UTC, Etc/GMT+5); offsets such as "+05:30" are not zones. */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

type Country = keyof typeof countries;
const isCountry = (code: string): code is Country => COUNTRY_CODE.test(code) && Object.hasOwn(countries, code);

const zonesByCountry = new Map<string, readonly string[]>();

/** The IANA zones ICU lists for the country (its canonical names: Asia/Calcutta, not Asia/Kolkata). */
export function countryTimeZones(country: string): readonly string[] {
  const code = country.toUpperCase();
  if (!COUNTRY_CODE.test(code)) return [];
  let zones = zonesByCountry.get(code);
  if (!zones) {
    zones = (new Intl.Locale(`und-${code}`) as Intl.Locale & { getTimeZones?(): string[] | undefined }).getTimeZones?.() ?? [];
    zonesByCountry.set(code, zones);
  }
  return zones;
}

/** The zone's name as the runtime spells it (any letter case accepted), or null when it is no zone. */
export function knownTimeZone(zone: string): string | null {
  if (!IANA_NAME.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const HISTORY_FROM = Date.UTC(1970, 0, 1);
const HISTORY_TO = Date.UTC(2038, 0, 1);
const WEEK_MS = 7 * 86_400_000;
/** One entry per valid zone name asked about: a few hundred at most. */
const histories = new Map<string, string>();

/**
 * The zone's UTC offsets sampled weekly from 1970 to 2038, as text. Two names with the same
 * history are one zone for tzdb (its links and merges are defined since 1970): Asia/Kolkata
 * and Asia/Calcutta, Europe/Kyiv and Europe/Kiev, US/Eastern and America/New_York.
 */
function offsetHistory(zone: string): string {
  let history = histories.get(zone);
  if (history === undefined) {
    const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    const changes: string[] = [];
    let last = '';
    for (let at = HISTORY_FROM; at < HISTORY_TO; at += WEEK_MS) {
      const offset = format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
      if (offset !== last) changes.push(`${at}${offset}`);
      last = offset;
    }
    history = changes.join(' ');
    histories.set(zone, history);
  }
  return history;
}

/**
 * Whether the time zone is one of the country's, aliases included. Null when the zone is not
 * a valid IANA name or the runtime lists no zone for the country.
 */
export function timeZoneInCountry(zone: string, country: string): boolean | null {
  const name = knownTimeZone(zone);
  const zones = countryTimeZones(country);
  if (name === null || zones.length === 0) return null;
  if (zones.includes(name)) return true;
  const history = offsetHistory(name);
  return zones.some((candidate) => offsetHistory(candidate) === history);
}

/** Individual languages browsers send, to the macrolanguage `countries-list` names. */
const MACROLANGUAGE: Readonly<Record<string, string>> = {
  cmn: 'zh', yue: 'zh', wuu: 'zh', arb: 'ar', zsm: 'ms', fil: 'tl', nb: 'no', nn: 'no',
};
const macro = (language: string) => MACROLANGUAGE[language] ?? language;

/** The country's official or widely spoken languages (ISO 639-1), empty when unknown. */
export function countryLanguages(country: string): readonly string[] {
  const code = country.toUpperCase();
  return isCountry(code) ? countries[code].languages : [];
}

/**
 * The primary language subtags of a list such as navigator.languages joined by commas, or an
 * Accept-Language value ("de-CH, de;q=0.9, en;q=0.8"): lower case, canonical (iw is he), each
 * once. A tag that is not BCP 47 is left out.
 */
export function primaryLanguages(list: string): string[] {
  const found = new Set<string>();
  for (const item of list.split(',')) {
    const tag = item.split(';')[0]!.trim();
    if (tag === '') continue;
    try {
      const language = new Intl.Locale(Intl.getCanonicalLocales(tag)[0]!).language.toLowerCase();
      if (language !== 'und') found.add(language);
    } catch {
      // Not a language tag ("*", "en_US"): it says nothing about the visitor.
    }
  }
  return [...found];
}

/**
 * Whether any of the languages is spoken in the country. Null when the list holds no language
 * tag or the country has no languages on record.
 */
export function languageSpokenInCountry(languages: string, country: string): boolean | null {
  const spoken = countryLanguages(country).map(macro);
  const sent = primaryLanguages(languages).map(macro);
  if (spoken.length === 0 || sent.length === 0) return null;
  return sent.some((language) => spoken.includes(language));
}
