import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { RangeFile } from '../../../src/ipintel/crawlers/bot-ranges';
import { claimedEngine, createCrawlerVerifier, loadShippedRanges, type SearchEngine } from '../../../src/ipintel/crawlers/crawlers';
import { parseIp } from '../../../src/ipintel/address';
import { APPLEBOT, BINGBOT, DUCKDUCKBOT, GOOGLEBOT, GOOGLEBOT_SMARTPHONE, IPHONE, YANDEXBOT } from '../../tracking/enrich/click-fixture';

const shipped = loadShippedRanges();

describe('user agent claims', () => {
  test('real crawler user agents map to their engine', () => {
    const cases: [string, SearchEngine | null][] = [
      [GOOGLEBOT, 'google'],
      [GOOGLEBOT_SMARTPHONE, 'google'],
      ['Googlebot-Image/1.0', 'google'],
      ['Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)', 'google'],
      [BINGBOT, 'bing'],
      ['Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/534+ (KHTML, like Gecko) BingPreview/1.0b', 'bing'],
      [APPLEBOT, 'apple'],
      [DUCKDUCKBOT, 'duckduckgo'],
      [YANDEXBOT, 'yandex'],
      ['Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)', 'baidu'],
      [IPHONE, null],
      ['AdsBot-Google (+http://www.google.com/adsbot.html)', null],
      ['Mozilla/5.0 (Linux; Android 14) YaBrowser/24.1.0.0 Mobile Safari/537.36', null],
      ['', null],
    ];
    for (const [ua, engine] of cases) expect([ua, claimedEngine(ua)]).toEqual([ua, engine]);
  });

  const tokens: [string, SearchEngine][] = [
    ['Googlebot/2.1', 'google'],
    ['googlebot', 'google'],
    ['bingbot/2.0', 'bing'],
    ['Applebot/0.1', 'apple'],
    ['DuckDuckBot/1.1', 'duckduckgo'],
    ['YandexBot/3.0', 'yandex'],
    ['Baiduspider/2.0', 'baidu'],
  ];
  const claimFree = fc.string({ maxLength: 200 }).filter((s) => claimedEngine(s) === null);

  test('property: a claim token anywhere in an otherwise claim-free string names its engine', () => {
    fc.assert(
      fc.property(claimFree, fc.constantFrom(...tokens), claimFree, (before, [token, engine], after) => {
        // No claim pattern spans a space, so the surrounding text cannot form another claim.
        expect(claimedEngine(`${before} ${token} ${after}`)).toBe(engine);
      }),
      { numRuns: 300 },
    );
  });

  test('property: claims ignore letter case', () => {
    fc.assert(
      fc.property(claimFree, fc.constantFrom(...tokens), (before, [token, engine]) => {
        const ua = `${before} ${token}`;
        expect(claimedEngine(ua.toUpperCase())).toBe(engine);
        expect(claimedEngine(ua.toLowerCase())).toBe(engine);
      }),
      { numRuns: 200 },
    );
  });
});

// An oracle independent of ipaddr.js: addresses and prefixes as BigInts.
function toBig(text: string): { big: bigint; width: number } {
  if (text.includes(':')) {
    const [head, tail = ''] = text.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const parts = text.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
    return { big: parts.reduce((acc, part) => (acc << 16n) | BigInt(parseInt(part, 16)), 0n), width: 128 };
  }
  return { big: text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n), width: 32 };
}
function oracleInside(ip: string, prefixes: readonly string[]): boolean {
  const address = toBig(ip);
  return prefixes.some((cidr) => {
    const [network, bitsText] = cidr.split('/');
    const net = toBig(network!);
    if (net.width !== address.width) return false;
    const shift = BigInt(net.width - Number(bitsText));
    return address.big >> shift === net.big >> shift;
  });
}
function fromBig(big: bigint, width: number): string {
  if (width === 32) return [24n, 16n, 8n, 0n].map((s) => String((big >> s) & 255n)).join('.');
  const parts: string[] = [];
  for (let i = 7; i >= 0; i--) parts.push(((big >> BigInt(i * 16)) & 0xffffn).toString(16));
  return parts.join(':');
}

describe('published range matching', () => {
  const verifier = createCrawlerVerifier(shipped);
  const engines = Object.keys(shipped) as SearchEngine[];

  test('the shipped snapshots hold the well-known prefixes', () => {
    expect(shipped.google!.prefixes).toContain('66.249.64.0/27');
    expect(shipped.google!.prefixes).toContain('2001:4860:4801:10::/64');
    expect(shipped.bing!.prefixes).toEqual(expect.arrayContaining(['157.55.39.0/24', '207.46.13.0/24', '40.77.167.0/24']));
    expect(shipped.apple!.prefixes).toContain('17.166.20.0/24');
    expect(shipped.duckduckgo!.prefixes.length).toBeGreaterThan(100);
    expect(engines.sort()).toEqual(['apple', 'bing', 'duckduckgo', 'google']);
  });

  test('property: any address inside a published prefix matches that engine', () => {
    const pick = fc.constantFrom(...engines).chain((engine) => fc.constantFrom(...shipped[engine]!.prefixes).map((cidr) => [engine, cidr] as const));
    fc.assert(
      fc.property(pick, fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), ([engine, cidr], noise) => {
        const [network, bitsText] = cidr.split('/');
        const { big, width } = toBig(network!);
        const hostBits = BigInt(width - Number(bitsText));
        const inside = big | (noise & ((1n << hostBits) - 1n));
        const ip = parseIp(fromBig(inside, width))!;
        expect(verifier.inRanges(engine, ip)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  test('property: for random IPv4 and IPv6 addresses, matching agrees with a BigInt oracle', () => {
    const nearGoogle = fc.integer({ min: 0, max: 0xffff }).map((low) => `66.249.${low >> 8}.${low & 255}`);
    const nearGoogleV6 = fc.bigInt({ min: 0n, max: (1n << 80n) - 1n }).map((low) => fromBig((0x20014860480100n << 72n) | low, 128));
    const address = fc.oneof(fc.ipV4(), fc.ipV6(), nearGoogle, nearGoogleV6);
    fc.assert(
      fc.property(address, fc.constantFrom(...engines), (text, engine) => {
        const ip = parseIp(text);
        fc.pre(ip !== null);
        expect(verifier.inRanges(engine, ip!)).toBe(oracleInside(ip!.toString(), shipped[engine]!.prefixes));
      }),
      { numRuns: 1000 },
    );
  });

  test('ranges are per engine', () => {
    const google = parseIp('66.249.66.1')!;
    expect(verifier.inRanges('google', google)).toBe(true);
    expect(verifier.inRanges('bing', google)).toBe(false);
    expect(verifier.inRanges('yandex', google)).toBe(false);
  });

  test('an engine without ranges never verifies', () => {
    const only: Partial<Record<SearchEngine, RangeFile>> = { bing: shipped.bing! };
    const partial = createCrawlerVerifier(only);
    expect(partial.inRanges('google', parseIp('66.249.66.1')!)).toBe(false);
    expect(partial.inRanges('bing', parseIp('157.55.39.1')!)).toBe(true);
  });
});
