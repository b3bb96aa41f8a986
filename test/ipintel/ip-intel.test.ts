import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { rateLimitKey as limiterKey } from '../../src/http/client-ip';
import { DEFAULT_CITY_DATABASES, openCityDatabases, placeOf } from '../../src/ipintel/geo/city-db';
import { exclusionBlock, openIpIntel, parseAddress, rateLimitKey } from '../../src/ipintel/ip-intel';
import { parseIp } from '../../src/ipintel/address';
import { AsnDataError } from '../../src/ipintel/asn/asn-table';
import { ASN_V6, asnCsvDir } from '../support/asn-csv';
import { tempDir } from '../support/temp-dir';

const intel = openIpIntel();

/** Addresses from the shipped data, one per kind of network. */
const KNOWN = {
  googleDns: '8.8.8.8',
  googleDnsV6: '2001:4860:4860::8888',
  tmobile: '172.56.10.20',
  tmobileV6: '2607:fb90:1234::1',
  comcast: '73.15.20.30',
  comcastV6: '2601:645:8000::1',
  safaricom: '41.90.1.1',
};

describe('lookups in the shipped data', () => {
  test('Google Public DNS: AS15169, a datacenter, in Mountain View', () => {
    expect(intel.pool(KNOWN.googleDns)).toEqual({ type: 'datacenter', asn: 15169, as_org: 'Google LLC' });
    expect(intel.ipType(KNOWN.googleDns)).toBe('datacenter');
    expect(intel.country(KNOWN.googleDns)).toBe('US');
    expect(intel.place(KNOWN.googleDns)).toEqual({ region: 'California', city: 'Mountain View' });
    expect(intel.pool(KNOWN.googleDnsV6)).toEqual({ type: 'datacenter', asn: 15169, as_org: 'Google LLC' });
  });

  test('mobile carriers: T-Mobile USA over IPv4 and IPv6, Safaricom', () => {
    expect(intel.pool(KNOWN.tmobile)).toEqual({ type: 'mobile', asn: 21928, as_org: 'T-Mobile USA, Inc.' });
    expect(intel.pool(KNOWN.tmobileV6)).toEqual({ type: 'mobile', asn: 21928, as_org: 'T-Mobile USA, Inc.' });
    expect(intel.pool(KNOWN.safaricom)).toMatchObject({ type: 'mobile', asn: 33771 });
    expect(intel.country(KNOWN.safaricom)).toBe('KE');
  });

  test('a home ISP: Comcast is residential, with a region and a city', () => {
    for (const ip of [KNOWN.comcast, KNOWN.comcastV6]) {
      expect(intel.pool(ip)).toEqual({ type: 'residential', asn: 7922, as_org: 'Comcast Cable Communications, LLC' });
      expect(intel.country(ip)).toBe('US');
      const place = intel.place(ip);
      expect(place.region).toBe('California');
      expect(place.city).toEqual(expect.any(String));
    }
  });

  test('an IPv4-mapped IPv6 address is the IPv4 address', () => {
    for (const [mapped, plain] of [['::ffff:8.8.8.8', '8.8.8.8'], ['::FFFF:AC38:0A14', KNOWN.tmobile]]) {
      expect(intel.pool(mapped!)).toEqual(intel.pool(plain!));
      expect(intel.place(mapped!)).toEqual(intel.place(plain!));
      expect(intel.country(mapped!)).toBe(intel.country(plain!));
      expect(rateLimitKey(mapped!)).toBe(plain!);
      expect(exclusionBlock(mapped!)).toBe(plain!);
    }
  });

  test('private and reserved addresses have no AS, so no type', () => {
    for (const ip of ['10.1.2.3', '192.168.0.1', '127.0.0.1', '::1', 'fd00::1']) {
      expect(intel.pool(ip)).toEqual({ type: null, asn: null, as_org: null });
      expect(intel.ipType(ip)).toBeNull();
      expect(intel.place(ip)).toEqual({ region: null, city: null });
    }
  });
});

describe('input that is not an address', () => {
  const notAddresses = ['', ' ', 'nope', 'example.com', '8.8.8.8 ', ' 8.8.8.8', '8.8.8.8/32', '2001:db8::/64', 'fe80::1%eth0', '[::1]', '01.2.3.4', '1.2.3', '256.1.1.1', '0x7f.0.0.1', '1::2::3'];

  test('gives nulls from every method, never an error', () => {
    for (const text of notAddresses) {
      expect(parseAddress(text)).toBeNull();
      expect(intel.country(text)).toBeNull();
      expect(intel.place(text)).toEqual({ region: null, city: null });
      expect(intel.ipType(text)).toBeNull();
      expect(intel.pool(text)).toEqual({ type: null, asn: null, as_org: null });
      expect(rateLimitKey(text)).toBeNull();
      expect(exclusionBlock(text)).toBeNull();
    }
  });

  test('property: any string either parses to an address ipaddr.js agrees with or gives nulls', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.ipV4(), fc.ipV6(), fc.ipV4Extended()), (text) => {
        const address = parseAddress(text);
        if (address === null) {
          expect(intel.pool(text)).toEqual({ type: null, asn: null, as_org: null });
          expect(rateLimitKey(text)).toBeNull();
        } else {
          expect(ipaddr.isValid(text)).toBe(true);
          expect(rateLimitKey(text)).toEqual(expect.any(String));
        }
      }),
    );
  });

  test('property: every canonical IPv4 and IPv6 address parses', () => {
    fc.assert(fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (text) => expect(parseAddress(text)).not.toBeNull()));
  });
});

describe('rate-limit key and exclusion block', () => {
  test('the rate-limit key is the one the limiter counts under', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (text) => {
        expect(rateLimitKey(text)).toBe(limiterKey(text));
      }),
    );
    expect(rateLimitKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
  });

  test('the exclusion block is the IPv4 address, or the /64 holding the IPv6 address', () => {
    expect(exclusionBlock('8.8.8.8')).toBe('8.8.8.8');
    expect(exclusionBlock('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(exclusionBlock('2001:4860:4860::8888')).toBe('2001:4860:4860::/64');
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        const address = parseAddress(text)!;
        if (address.kind() === 'ipv4') return;
        const block = exclusionBlock(text)!;
        const [network, bits] = ipaddr.parseCIDR(block);
        expect(bits).toBe(64);
        expect((address as ipaddr.IPv6).match(network as ipaddr.IPv6, 64)).toBe(true);
        // RFC 5952: the network address written the one canonical way.
        expect(block).toBe(`${network.toString()}/64`);
        expect(rateLimitKey(text)!.endsWith('::/64')).toBe(true);
      }),
    );
  });
});

describe('city databases', () => {
  test('reads both the DB-IP layout and the GeoLite2 layout', () => {
    expect(placeOf({ country_code: 'US', state1: 'California', state2: '', city: 'Mountain View' })).toEqual({ country: 'US', region: 'California', city: 'Mountain View' });
    expect(placeOf({ country: { iso_code: 'DE' }, subdivisions: [{ names: { en: 'Hesse' } }], city: { names: { en: 'Frankfurt am Main' } } })).toEqual({
      country: 'DE',
      region: 'Hesse',
      city: 'Frankfurt am Main',
    });
    expect(placeOf({ country_code: 'usa', state1: ' ', city: '' })).toEqual({ country: null, region: null, city: null });
    expect(placeOf(null)).toEqual({ country: null, region: null, city: null });
  });

  test('an IPv4-only file is never asked about IPv6, and files are asked in order', () => {
    const [v4File, v6File] = DEFAULT_CITY_DATABASES as [string, string];
    const v6Only = openCityDatabases([v6File]);
    expect(v6Only.place(parseIp('8.8.8.8')!)).toEqual({ country: null, region: null, city: null });
    expect(v6Only.place(parseIp('2a00:1450:4001:82b::200e')!).country).toBe('DE');
    const v4Only = openCityDatabases([v4File]);
    expect(v4Only.place(parseIp('2a00:1450:4001:82b::200e')!)).toEqual({ country: null, region: null, city: null });
    expect(v4Only.place(parseIp('8.8.8.8')!).city).toBe('Mountain View');
  });

  test('a missing file fails on the first lookup, with its path', () => {
    const missing = join(tempDir('city'), 'absent.mmdb');
    const lookup = openIpIntel({ cityDatabases: [missing] });
    expect(() => lookup.place('8.8.8.8')).toThrow(missing);
    expect(lookup.place('not an address')).toEqual({ region: null, city: null });
  });
});

describe('load: every database before the first lookup', () => {
  test('the ASN table is read by load(), not by the first lookup: its cache file appears then', () => {
    const cacheDir = join(tempDir('ipintel'), 'cache');
    const lookup = openIpIntel({ asnDir: asnCsvDir(), cacheDir });
    expect(existsSync(cacheDir) && readdirSync(cacheDir).some((file) => file.startsWith('asn-'))).toBe(false);
    lookup.load();
    expect(readdirSync(cacheDir).filter((file) => file.startsWith('asn-'))).toHaveLength(1);
    expect(lookup.pool('8.8.8.8')).toEqual({ type: 'datacenter', asn: 15169, as_org: 'Google LLC' });
  });

  test('data that cannot be read fails load() itself, naming the file or the row', () => {
    expect(() => openIpIntel({ asnDir: asnCsvDir('not,a,row', ASN_V6) }).load()).toThrow(AsnDataError);
    const missing = join(tempDir('city'), 'absent.mmdb');
    expect(() => openIpIntel({ asnDir: asnCsvDir(), cityDatabases: [missing] }).load()).toThrow(missing);
  });
});
