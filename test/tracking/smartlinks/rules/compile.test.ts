import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { compileRules } from '../../../../src/tracking/smartlinks/rules/compile';
import { requestFacts, type RouteFacts, visitorHash } from '../../../../src/tracking/smartlinks/rules/facts';
import type { RuleSet } from '../../../../src/tracking/smartlinks/rules/rules.model';
import { factsArb, POOLS, ruleSetArb } from './arbitraries';
import { referenceEvaluate } from './reference';

const facts = (overrides: Partial<RouteFacts> = {}): RouteFacts => ({
  country: null,
  region: null,
  city: null,
  os: null,
  ipType: null,
  inApp: false,
  languages: [],
  params: new Map(),
  nowMs: Date.UTC(2026, 8, 2, 12),
  visitorHash: 0,
  ...overrides,
});

describe('compileRules', () => {
  test('property: the compiled evaluator decides exactly as the reference interpreter', () => {
    fc.assert(
      fc.property(ruleSetArb, fc.array(factsArb, { minLength: 1, maxLength: 20 }), (set, requests) => {
        const compiled = compileRules(set);
        for (const request of requests) expect(compiled.evaluate(request)).toEqual(referenceEvaluate(set, request));
      }),
      { numRuns: 3000 },
    );
  });

  test('property: a request walking through time agrees with the reference at every step', () => {
    // Consecutive instants exercise the per-zone offset cache across DST changes and midnights.
    const start = Date.UTC(2026, 2, 28, 20);
    fc.assert(
      fc.property(ruleSetArb, factsArb, (set, base) => {
        const compiled = compileRules(set);
        for (let step = 0; step < 40; step++) {
          const request = { ...base, nowMs: start + step * 17 * 60_000 };
          expect(compiled.evaluate(request)).toEqual(referenceEvaluate(set, request));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('property: needs names exactly the facts some condition reads', () => {
    fc.assert(
      fc.property(ruleSetArb, (set) => {
        const { needs } = compileRules(set);
        const some = (test: (rule: RuleSet['rules'][number]) => boolean) => set.rules.some(test);
        expect(needs).toEqual({
          geo: some((r) => r.if.country !== undefined),
          place: some((r) => r.if.region !== undefined || r.if.city !== undefined),
          ipType: some((r) => r.if.ip_type !== undefined),
          os: some((r) => r.if.os !== undefined),
          inApp: some((r) => r.if.in_app !== undefined),
          language: some((r) => r.if.language !== undefined),
          params: some((r) => r.if.params !== undefined),
          time: some((r) => r.if.hours !== undefined || r.if.weekdays !== undefined),
          variants: some((r) => 'variants' in r.then),
          ...(some((r) => r.if.params !== undefined) ? { paramNames: [...new Set(set.rules.flatMap((r) => Object.keys(r.if.params ?? {})))] } : {}),
        });
      }),
    );
  });

  test('property: reading only the parameters the rules name decides as reading them all', () => {
    // Real query strings, encoded names and values, repeats and a parameter no rule names.
    const piece = fc
      .tuple(fc.constantFrom(...POOLS.paramNames, 'other'), fc.constantFrom(...POOLS.paramValues, 'x', ''), fc.boolean())
      .map(([name, value, encode]) => (encode ? `${encodeURIComponent(name).replaceAll('_', '%5F')}=${encodeURIComponent(value)}` : `${name}=${value}`));
    const source = (query: string) => ({ linkId: 'link', ip: '', userAgent: null, acceptLanguage: null, query, nowMs: Date.UTC(2026, 8, 2, 12) });
    const ip = { country: () => null, place: () => ({ region: null, city: null }), ipType: () => null };
    fc.assert(
      fc.property(ruleSetArb, fc.array(piece, { maxLength: 6 }), (set, pieces) => {
        const compiled = compileRules(set);
        const query = pieces.join('&');
        const allParams = { ...compiled.needs, paramNames: undefined };
        expect(compiled.evaluate(requestFacts(source(query), compiled.needs, ip))).toEqual(compiled.evaluate(requestFacts(source(query), allParams, ip)));
      }),
      { numRuns: 2000 },
    );
  });

  test('the first matching rule wins; no match is a null action', () => {
    const set: RuleSet = {
      version: 1,
      rules: [
        { name: 'ios-us', if: { os: ['ios'], country: ['US', 'CA'] }, then: { store: 'https://apps.apple.com/app/id123' } },
        { if: { os: ['ios'] }, then: { url: 'https://ios.example' } },
        { name: 'all', if: {}, then: { block: 410 } },
      ],
    };
    const compiled = compileRules(set);
    expect(compiled.evaluate(facts({ os: 'ios', country: 'CA' }))).toEqual({ ruleIndex: 0, ruleName: 'ios-us', action: { store: 'https://apps.apple.com/app/id123' }, variantIndex: null });
    expect(compiled.evaluate(facts({ os: 'ios', country: 'DE' }))).toEqual({ ruleIndex: 1, ruleName: null, action: { url: 'https://ios.example' }, variantIndex: null });
    expect(compiled.evaluate(facts({ os: 'android' }))).toMatchObject({ ruleIndex: 2, ruleName: 'all', action: { block: 410 } });
    expect(compileRules({ version: 1, rules: [] }).evaluate(facts())).toEqual({ ruleIndex: null, ruleName: null, action: null, variantIndex: null });
    expect(compileRules({ version: 1, rules: [{ if: { country: ['US'] }, then: { block: 403 } }] }).evaluate(facts())).toMatchObject({ action: null });
  });

  test('regions and cities compare case-insensitively; a missing fact never matches', () => {
    const compiled = compileRules({ version: 1, rules: [{ if: { city: ['München'] }, then: { block: 403 } }] });
    expect(compiled.evaluate(facts({ city: 'MÜNCHEN' })).ruleIndex).toBe(0);
    expect(compiled.evaluate(facts({ city: 'münchen' })).ruleIndex).toBe(0);
    expect(compiled.evaluate(facts({ city: 'Munich' })).ruleIndex).toBeNull();
    expect(compiled.evaluate(facts({ city: null })).ruleIndex).toBeNull();
  });

  test('language reads the most preferred language only', () => {
    const compiled = compileRules({ version: 1, rules: [{ if: { language: ['de'] }, then: { url: 'https://de.example' } }] });
    expect(compiled.evaluate(facts({ languages: ['de', 'en'] })).ruleIndex).toBe(0);
    expect(compiled.evaluate(facts({ languages: ['en', 'de'] })).ruleIndex).toBeNull();
  });

  test('params: every named parameter present with a listed value; * takes any value, an empty one too', () => {
    const compiled = compileRules({ version: 1, rules: [{ if: { params: { utm_source: ['news'], ref: ['*'] } }, then: { block: 403 } }] });
    expect(compiled.evaluate(facts({ params: new Map([['utm_source', 'news'], ['ref', '']]) })).ruleIndex).toBe(0);
    expect(compiled.evaluate(facts({ params: new Map([['utm_source', 'News'], ['ref', 'x']]) })).ruleIndex).toBeNull();
    expect(compiled.evaluate(facts({ params: new Map([['utm_source', 'news']]) })).ruleIndex).toBeNull();
  });

  test('variants: sticky per visitor hash, shared in proportion to the weights', () => {
    const set: RuleSet = { version: 1, rules: [{ name: 'ab', if: {}, then: { variants: [{ url: POOLS.urls[0]!, weight: 70 }, { url: POOLS.urls[1]!, weight: 30 }] } }] };
    const compiled = compileRules(set);
    expect(compiled.evaluate(facts({ visitorHash: 69 })).variantIndex).toBe(0);
    expect(compiled.evaluate(facts({ visitorHash: 70 })).variantIndex).toBe(1);
    expect(compiled.evaluate(facts({ visitorHash: 199 })).variantIndex).toBe(1);
    expect(compiled.evaluate(facts({ visitorHash: 0xffffffff })).variantIndex).toBe(0xffffffff % 100 < 70 ? 0 : 1);
    const counts = [0, 0];
    for (let hash = 0; hash < 10_000; hash++) counts[compiled.evaluate(facts({ visitorHash: hash })).variantIndex!]!++;
    expect(counts).toEqual([7000, 3000]);
  });

  test('hours wrap midnight in the zone; from == to is every hour; weekdays use the same zone', () => {
    const night = compileRules({ version: 1, rules: [{ if: { hours: { from: 22, to: 6, tz: 'Europe/Berlin' } }, then: { block: 410 } }] });
    // 2026-09-02 is a Wednesday; Berlin is UTC+2 in summer.
    const berlin = (hour: number) => Date.UTC(2026, 8, 2, hour - 2);
    expect([21, 22, 23, 24, 29, 30].map((h) => night.evaluate(facts({ nowMs: berlin(h) })).ruleIndex)).toEqual([null, 0, 0, 0, 0, null]);
    const always = compileRules({ version: 1, rules: [{ if: { hours: { from: 7, to: 7, tz: 'UTC' } }, then: { block: 410 } }] });
    for (let h = 0; h < 24; h++) expect(always.evaluate(facts({ nowMs: Date.UTC(2026, 8, 2, h) })).ruleIndex).toBe(0);
    const weekend = compileRules({ version: 1, rules: [{ if: { weekdays: ['sat', 'sun'], hours: { from: 0, to: 0, tz: 'Pacific/Auckland' } }, then: { block: 403 } }] });
    // Friday 2026-09-04 13:00 UTC is Saturday 01:00 in Auckland (UTC+12).
    expect(weekend.evaluate(facts({ nowMs: Date.UTC(2026, 8, 4, 13) })).ruleIndex).toBe(0);
    expect(weekend.evaluate(facts({ nowMs: Date.UTC(2026, 8, 4, 11) })).ruleIndex).toBeNull();
    const utcWeekend = compileRules({ version: 1, rules: [{ if: { weekdays: ['sat'] }, then: { block: 403 } }] });
    expect(utcWeekend.evaluate(facts({ nowMs: Date.UTC(2026, 8, 4, 13) })).ruleIndex).toBeNull();
    expect(utcWeekend.evaluate(facts({ nowMs: Date.UTC(2026, 8, 5, 0) })).ruleIndex).toBe(0);
  });

  test('the visitor is hashed only when a variants rule decides', () => {
    const compiled = compileRules({ version: 1, rules: [{ if: { os: ['ios'] }, then: { url: POOLS.urls[0]! } }, { if: {}, then: { variants: [{ url: POOLS.urls[1]!, weight: 1 }, { url: POOLS.urls[2]!, weight: 1 }] } }] });
    const visitor = { linkId: 'link', ip: '203.0.113.9', userAgent: 'UA' };
    const ios = facts({ os: 'ios', visitorHash: null, visitor });
    expect(compiled.evaluate(ios).ruleIndex).toBe(0);
    expect(ios.visitorHash).toBeNull();
    const other = facts({ os: 'android', visitorHash: null, visitor });
    expect(compiled.evaluate(other).variantIndex).toBe(visitorHash('link', '203.0.113.9', 'UA') % 2);
    expect(other.visitorHash).toBe(visitorHash('link', '203.0.113.9', 'UA'));
  });

  test('evaluating returns decisions made at compile time: the same object for the same outcome', () => {
    const compiled = compileRules({ version: 1, rules: [{ if: { os: ['ios'] }, then: { url: POOLS.urls[0]! } }, { if: {}, then: { variants: [{ url: POOLS.urls[1]!, weight: 1 }, { url: POOLS.urls[2]!, weight: 1 }] } }] });
    expect(compiled.evaluate(facts({ os: 'ios' }))).toBe(compiled.evaluate(facts({ os: 'ios' })));
    expect(compiled.evaluate(facts({ visitorHash: 3 }))).toBe(compiled.evaluate(facts({ visitorHash: 5 })));
    expect(Object.isFrozen(compiled.evaluate(facts()))).toBe(true);
  });
});
