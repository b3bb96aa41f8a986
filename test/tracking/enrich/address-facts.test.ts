import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { openIpIntel } from '../../../src/ipintel/ip-intel';
import { createRepeatWindow } from '../../../src/tracking/risk/repeat-window';
import { createIpHasher } from '../../../src/shared/crypto/ip-hash';
import { createAddressCache } from '../../../src/tracking/enrich/address-facts';
import { createCrawlerVerifier, loadShippedRanges } from '../../../src/ipintel/crawlers/crawlers';
import { openGeoDatabase } from '../../../src/ipintel/geo/geo-reader';
import { beginWork, STEPS, type StepContext } from '../../../src/tracking/enrich/steps';
import type { ClickRecord } from '../../../src/tracking/click.model';
import { GOOGLEBOT, IPHONE, rawClick } from './click-fixture';

const ipHasher = createIpHasher('address-facts-test-secret-0123456789abcdef');
const shared = { geo: openGeoDatabase(), crawlers: createCrawlerVerifier(loadShippedRanges()), ipHasher, ipIntel: openIpIntel() };
const contextOf = (): StepContext => ({ ...shared, repeats: createRepeatWindow() });

/** Runs every step over each click in order, on one context, with or without an address cache. */
function enrichAll(clicks: ClickRecord[], cacheLimit: number | null): ClickRecord[] {
  const context = contextOf();
  const addresses = cacheLimit === null ? undefined : createAddressCache(cacheLimit);
  return clicks.map((click) => {
    const work = beginWork(click, addresses);
    for (const step of STEPS) step.run(work, context);
    return work.click;
  });
}

// Public addresses with a country, region and AS type in the shipped data, loopback, IPv6,
// IPv4-mapped IPv6 (one address in two spellings), a Google crawler address, and garbage.
const ADDRESSES = ['8.8.8.8', '81.2.69.142', '2a02:8070::1', '::ffff:81.2.69.142', '127.0.0.1', '66.249.66.1', 'not-an-ip', ''];
const DAY_MS = 24 * 60 * 60 * 1000;

describe('address facts cache', () => {
  test('property: cached enrichment equals enrichment that looks every address up afresh', () => {
    const click = fc.record({
      ip: fc.constantFrom(...ADDRESSES),
      user_agent: fc.constantFrom(IPHONE, GOOGLEBOT, 'curl/8.4.0'),
      // Times across three UTC days, in any order: the ip-day hash must follow the click's day.
      offset: fc.integer({ min: 0, max: 3 * DAY_MS }),
      link: fc.constantFrom('link_1', 'link_2'),
    });
    fc.assert(
      fc.property(fc.array(click, { minLength: 1, maxLength: 40 }), fc.constantFrom(1, 2, 10_000), (specs, limit) => {
        const clicks = specs.map((spec, index) =>
          rawClick({ id: String(index), ip: spec.ip, user_agent: spec.user_agent, link_id: spec.link, created_at: new Date(Date.UTC(2026, 8, 1) + spec.offset).toISOString() }),
        );
        expect(enrichAll(clicks, limit)).toEqual(enrichAll(clicks, null));
      }),
      { numRuns: 300 },
    );
  });

  test('one address clicking on two UTC days gets each day its own ip-day hash, and one household', () => {
    const [before, after] = enrichAll(
      [rawClick({ ip: '81.2.69.142', created_at: '2026-09-01T23:59:59.999Z' }), rawClick({ ip: '81.2.69.142', created_at: '2026-09-02T00:00:00.000Z' })],
      10_000,
    );
    expect(before!.ip_day_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(after!.ip_day_hash).not.toBe(before!.ip_day_hash);
    expect(after!.ip_day_hash).toBe(ipHasher.ipDay('81.2.69.142', new Date('2026-09-02T12:00:00Z')));
    expect(after!.household_hash).toBe(before!.household_hash);
  });

  test('an unreadable created_at gets no ip-day hash, cached address or not', () => {
    for (const limit of [null, 10_000]) {
      const [known, unreadable] = enrichAll([rawClick({ ip: '8.8.8.8' }), rawClick({ ip: '8.8.8.8', created_at: 'yesterday' })], limit);
      expect(known!.ip_day_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(unreadable!.ip_day_hash).toBeNull();
      expect(unreadable!.household_hash).toBe(known!.household_hash);
    }
  });

  test('a malformed address is never kept, and a full cache starts over', () => {
    const cache = createAddressCache(2);
    expect(cache.facts('not-an-ip')).toEqual({ ip: null, text: null });
    expect(cache.facts(null)).toEqual({ ip: null, text: null });
    const first = cache.facts('8.8.8.8');
    first.country = 'US';
    expect(cache.facts('8.8.8.8')).toBe(first);
    cache.facts('1.1.1.1');
    cache.facts('9.9.9.9'); // the third address empties the cache
    const again = cache.facts('8.8.8.8');
    expect(again).not.toBe(first);
    expect(again.country).toBeUndefined();
    expect(cache.facts('::ffff:8.8.8.8').text).toBe('8.8.8.8');
  });
});
