import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { canonicalIp, createIpHasher, householdPrefix } from '../../../src/shared/crypto/ip-hash';

/** The documented construction, written out independently: HMAC-SHA256 under a key derived from the secret. */
function reference(secret: string, message: string): string {
  const key = createHmac('sha256', secret).update('svc ip hashing v1').digest();
  return createHmac('sha256', key).update(message).digest('hex');
}

describe('IP hashing', () => {
  test('ipDay and household are the keyed HMACs of the canonical address and of its prefix', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.ipV4(), fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }), (secret, ip, at) => {
        const hasher = createIpHasher(secret);
        expect(hasher.ipDay(ip, at)).toBe(reference(secret, `ipday|${ip}|${at.toISOString().slice(0, 10)}`));
        expect(hasher.household(ip)).toBe(reference(secret, `household|${householdPrefix(ip)}`));
      }),
    );
  });

  test('property: the dotted-quad shortcut spells addresses and prefixes exactly as the general parser does', () => {
    const viaParser = (ip: string) => {
      const parsed = ipaddr.process(ip);
      return { canonical: parsed.toString(), prefix: `${(parsed as ipaddr.IPv4).octets.slice(0, 3).join('.')}.0/24` };
    };
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV4().map((ip) => `::ffff:${ip}`)), (ip) => {
        const expected = viaParser(ip);
        expect(canonicalIp(ip)).toBe(expected.canonical);
        expect(householdPrefix(ip)).toBe(expected.prefix);
      }),
      { numRuns: 2000 },
    );
  });

  test('repeated hashing with one hasher gives the same answers (the keyed state is never consumed)', () => {
    const hasher = createIpHasher('secret');
    const day = new Date('2026-11-22T10:00:00Z');
    const first = hasher.ipDay('203.0.113.7', day);
    for (let i = 0; i < 5; i++) expect(hasher.ipDay('203.0.113.7', day)).toBe(first);
    expect(hasher.ipDay('203.0.113.8', day)).not.toBe(first);
  });

  test('the same viewer on the same day matches; another day or another secret does not', () => {
    const hasher = createIpHasher('secret');
    const morning = new Date('2026-11-22T01:00:00Z');
    const evening = new Date('2026-11-22T23:00:00Z');
    expect(hasher.ipDay('198.51.100.1', morning)).toBe(hasher.ipDay('198.51.100.1', evening));
    expect(hasher.ipDay('198.51.100.1', morning)).not.toBe(hasher.ipDay('198.51.100.1', new Date('2026-11-23T01:00:00Z')));
    expect(createIpHasher('other').ipDay('198.51.100.1', morning)).not.toBe(hasher.ipDay('198.51.100.1', morning));
  });

  test('a /24 (IPv4) or /48 (IPv6) is one household, and IPv4-mapped IPv6 is the IPv4 address', () => {
    const hasher = createIpHasher('secret');
    expect(hasher.household('192.0.2.10')).toBe(hasher.household('192.0.2.250'));
    expect(hasher.household('192.0.2.10')).not.toBe(hasher.household('192.0.3.10'));
    expect(hasher.household('2001:db8:1:aaaa::1')).toBe(hasher.household('2001:db8:1:bbbb::2'));
    expect(hasher.household('2001:db8:1::1')).not.toBe(hasher.household('2001:db8:2::1'));
    expect(hasher.ipDay('::ffff:192.0.2.10', new Date('2026-11-22'))).toBe(hasher.ipDay('192.0.2.10', new Date('2026-11-22')));
  });
});
