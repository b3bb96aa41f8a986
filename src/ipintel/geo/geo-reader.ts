import { Reader, type Response } from 'maxmind';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { IpAddress } from '../address';

/**
 * Country lookup in an MMDB file. The default is the country database shipped by
 * @ip-location-db/geo-whois-asn-country-mmdb (records are {country_code: 'US'}); a
 * GeoLite2-Country or -City file works too (records carry country.iso_code).
 */
export interface GeoLookup {
  country(ip: IpAddress): string | null;
}

interface CountryRecord {
  country_code?: unknown;
  country?: { iso_code?: unknown };
}

export const DEFAULT_GEO_DATABASE = createRequire(import.meta.url).resolve(
  '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb',
);

const COUNTRY_CODE = /^[A-Z]{2}$/;

/** One reader per file per process: the file is megabytes long and every app instance shares it. */
const opened = new Map<string, GeoLookup>();

/** Opens the database synchronously, once; a missing or corrupt file fails at start, never per click. */
export function openGeoDatabase(path = DEFAULT_GEO_DATABASE): GeoLookup {
  const existing = opened.get(path);
  if (existing) return existing;
  const reader = new Reader<Response>(readFileSync(path));
  const lookup: GeoLookup = {
    country(ip) {
      // maxmind types only MaxMind's own layouts; this file's records are {country_code}.
      const record = reader.get(ip.toString()) as CountryRecord | null;
      const code = record?.country_code ?? record?.country?.iso_code;
      return typeof code === 'string' && COUNTRY_CODE.test(code) ? code : null;
    },
  };
  opened.set(path, lookup);
  return lookup;
}
