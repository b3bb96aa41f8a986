import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { rateLimitKey as limiterKey } from '../http/client-ip';
import { openGeoDatabase } from './geo/geo-reader';
import { parseIp, type IpAddress } from './address';
import { loadAsnTable } from './asn/asn-load';
import { loadAsnTypes, type IpType } from './asn/asn-types';
import { openCityDatabases } from './geo/city-db';

/**
 * What the service knows about an address from shipped data: country, region and city, the
 * autonomous system and the IP type (docs/ip-intelligence.md). Every method is synchronous;
 * each database loads on its first use, once per process, unless `load` loaded them all first.
 * Input that is not an address gives nulls.
 */
export interface IpIntel {
  country(ip: string): string | null;
  place(ip: string): { region: string | null; city: string | null };
  ipType(ip: string): IpType | null;
  pool(ip: string): PoolFacts;
  /**
   * Loads every database now. On a new DATA_DIR the ASN table is parsed from its CSV files first,
   * the slow part of a load. A click writer loads as it starts, before its first batch, so the
   * parse runs while the node boots and not in the batch of its first click, which must reach
   * Postgres within the wait a conversion gives a fresh click (src/tracking/click-arrival.ts;
   * docs/ip-intelligence.md).
   */
  load(): void;
}

export interface PoolFacts {
  type: IpType | null;
  asn: number | null;
  as_org: string | null;
}

export interface IpIntelOptions {
  /** Country MMDB; default the one click enrichment uses (src/ipintel/geo/geo-reader.ts). */
  geoDatabase?: string;
  /** City MMDB files, asked in order; default DB-IP City Lite (src/ipintel/geo/city-db.ts). */
  cityDatabases?: readonly string[];
  /** A directory holding asn-ipv4-num.csv and asn-ipv6-num.csv; default @ip-location-db/asn. */
  asnDir?: string;
  /**
   * A writable directory for the ASN table's binary copy (asn-load.ts) and for copies of city
   * files the process may not map in place (mapped-file.ts); none: parsed or read into memory.
   */
  cacheDir?: string;
  /** A directory holding datacenter.json and mobile.json; default src/ipintel/asn/asn-types. */
  asnTypesDir?: string;
}

/**
 * A bare IPv4 or IPv6 address as text: no surrounding space, zone id, prefix or brackets.
 * IPv4-mapped IPv6 comes back as the IPv4 address.
 */
export function parseAddress(text: string): IpAddress | null {
  if (typeof text !== 'string' || text !== text.trim() || text.includes('%')) return null;
  return parseIp(text);
}

/** The key the rate limiter counts an address under: the address, or its IPv6 /64. */
export function rateLimitKey(ip: string): string | null {
  const address = parseAddress(ip);
  return address ? limiterKey(address.toString()) : null;
}

/** The form an ad platform's IP exclusion takes: the IPv4 address, or the IPv6 /64 in RFC 5952 form. */
export function exclusionBlock(ip: string): string | null {
  const address = parseAddress(ip);
  if (!address) return null;
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

const NO_POOL: PoolFacts = Object.freeze({ type: null, asn: null, as_org: null });
const NO_PLACE = Object.freeze({ region: null, city: null });

/** The node's databases as configured: GEO_CITY_DB, and caches under DATA_DIR (every thread the same). */
export function ipIntelOptionsFor(config: { geoCityDb?: string | undefined; dataDir: string }): IpIntelOptions & { cacheDir: string } {
  return { cityDatabases: config.geoCityDb ? [config.geoCityDb] : undefined, cacheDir: join(config.dataDir, 'ipintel') };
}

export function openIpIntel(options: IpIntelOptions = {}): IpIntel {
  let geo: ReturnType<typeof openGeoDatabase> | undefined;
  let city: ReturnType<typeof openCityDatabases> | undefined;
  let asnTable: ReturnType<typeof loadAsnTable> | undefined;
  let asnTypes: ReturnType<typeof loadAsnTypes> | undefined;
  // One address is usually asked about several times in a row (a rule set, a lookup).
  let lastText: string | undefined;
  let lastAddress: IpAddress | null = null;
  const address = (text: string) => {
    if (text !== lastText) {
      lastAddress = parseAddress(text);
      lastText = text;
    }
    return lastAddress;
  };
  // Each database, opened on its first use.
  const geoDatabase = () => (geo ??= openGeoDatabase(options.geoDatabase));
  const cityDatabases = () => (city ??= openCityDatabases(options.cityDatabases, { copyDir: options.cacheDir }));
  const asns = () => (asnTable ??= loadAsnTable({ dir: options.asnDir, cacheDir: options.cacheDir }));
  const types = () => (asnTypes ??= loadAsnTypes(options.asnTypesDir));
  const asnRecord = (ip: string) => {
    const parsed = address(ip);
    return parsed ? asns().lookup(parsed) : null;
  };
  const typeOf = (asn: number) => types().typeOf(asn);
  const pool = (ip: string): PoolFacts => {
    const record = asnRecord(ip);
    return record ? { type: typeOf(record.asn), asn: record.asn, as_org: record.org } : NO_POOL;
  };
  return {
    country(ip) {
      const parsed = address(ip);
      if (!parsed) return null;
      return geoDatabase().country(parsed);
    },
    place(ip) {
      const parsed = address(ip);
      if (!parsed) return NO_PLACE;
      const { region, city: cityName } = cityDatabases().place(parsed);
      return { region, city: cityName };
    },
    // Asked for every stored click (the datacenter_ip risk signal): no PoolFacts object made.
    ipType(ip) {
      const record = asnRecord(ip);
      return record ? typeOf(record.asn) : null;
    },
    pool,
    load() {
      geoDatabase();
      cityDatabases().load();
      asns();
      types();
    },
  };
}
