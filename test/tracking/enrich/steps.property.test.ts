import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { openIpIntel } from '../../../src/ipintel/ip-intel';
import { createRepeatWindow } from '../../../src/tracking/risk/repeat-window';
import { createIpHasher } from '../../../src/shared/crypto/ip-hash';
import { createCrawlerVerifier, loadShippedRanges } from '../../../src/ipintel/crawlers/crawlers';
import { openGeoDatabase } from '../../../src/ipintel/geo/geo-reader';
import { createIngestion } from '../../../src/tracking/enrich/ingest';
import { parseIp } from '../../../src/ipintel/address';
import { beginWork, STEPS, type StepContext } from '../../../src/tracking/enrich/steps';
import { GOOGLEBOT, IPHONE, rawClick } from './click-fixture';

const ipHasher = createIpHasher('property-test-secret-0123456789abcdef');
const context: StepContext = {
  geo: openGeoDatabase(),
  crawlers: createCrawlerVerifier(loadShippedRanges()),
  ipHasher,
  ipIntel: openIpIntel(),
  repeats: createRepeatWindow(),
};
const ingestion = createIngestion({ ipHasher });

const anyText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 3000 }),
);
const ipLike = fc.oneof(anyText, fc.ipV4(), fc.ipV6(), fc.ipV4Extended(), fc.ipV6().map((ip) => `${ip}%eth0`), fc.ipV4().map((ip) => `::ffff:${ip}`));
const uaLike = fc.oneof(anyText, fc.constant(GOOGLEBOT), fc.constant(IPHONE), anyText.map((s) => `${s} Googlebot/2.1 ${s}`));
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const createdAt = fc.oneof(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()), anyText);

describe('ingestion steps on arbitrary input', () => {
  test('property: no step throws, whatever ip, user agent and created_at hold', () => {
    fc.assert(
      fc.property(nullable(ipLike), nullable(uaLike), createdAt, (ip, user_agent, created_at) => {
        const work = beginWork(rawClick({ ip, user_agent, created_at }));
        for (const step of STEPS) step.run(work, context);
      }),
      { numRuns: 1500 },
    );
  });

  test('property: the outcome is always one of the documented states', () => {
    fc.assert(
      fc.property(nullable(ipLike), nullable(uaLike), (ip, user_agent) => {
        const click = ingestion.enrich(rawClick({ ip, user_agent }));
        expect([null, 'invalid', 'bot', 'verified_bot']).toContain(click.drop_reason);
        // is_bot is exactly "verified crawler", and a verified crawler never attributes.
        expect(click.is_bot).toBe(click.drop_reason === 'verified_bot');
        const parsed = parseIp(ip);
        if (!parsed || !user_agent?.trim()) expect(click.drop_reason).toBe('invalid');
        if (parsed) {
          expect(click.ip).toBe(parsed.toString());
          expect(click.household_hash).toMatch(/^[0-9a-f]{64}$/);
        } else {
          expect([click.ip, click.country, click.ip_day_hash, click.household_hash]).toEqual([ip, null, null, null]);
        }
        if (click.country !== null) expect(click.country).toMatch(/^[A-Z]{2}$/);
        if (click.device_type !== null) expect(['mobile', 'tablet', 'desktop', 'smarttv', 'console', 'wearable', 'embedded']).toContain(click.device_type);
      }),
      { numRuns: 1500 },
    );
  });

  test('property: valid addresses parse to the spelling ipaddr.js gives, and only those', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (text) => {
        const parsed = parseIp(text);
        expect(parsed).not.toBeNull();
        expect(parseIp(parsed!.toString())!.toString()).toBe(parsed!.toString());
      }),
    );
    fc.assert(
      fc.property(fc.ipV4Extended().filter((ip) => !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip) || /(^|\.)0\d/.test(ip)), (text) => {
        expect(parseIp(text)).toBeNull();
      }),
    );
  });

  test('property: dotted quads, leading zeros and out-of-range octets included, parse exactly as ipaddr.js says', () => {
    const octet = fc.oneof(fc.integer({ min: 0, max: 255 }).map(String), fc.integer({ min: 0, max: 999 }).map(String), fc.stringMatching(/^0\d{1,2}$/));
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (octets) => {
        const text = octets.join('.');
        const reference = ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text).toString() : null;
        expect(parseIp(text)?.toString() ?? null).toBe(reference);
        if (reference) expect(parseIp(text)!.kind()).toBe('ipv4');
      }),
      { numRuns: 3000 },
    );
  });
});
