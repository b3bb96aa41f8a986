import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import InAppSpy from 'inapp-spy';
import { parseUserAgent } from '../../../../src/tracking/enrich/user-agent';
import {
  acceptedLanguages,
  canonicalTimeZone,
  type FactNeeds,
  firstParams,
  inAppBrowser,
  type IpFacts,
  operatingSystem,
  requestFacts,
  visitorDraw,
  visitorHash,
  zonedHourAndWeekday,
} from '../../../../src/tracking/smartlinks/rules/facts';
import { wallClock } from './reference';

const UA = {
  instagramIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 326.0.3.30.91 (iPhone14,5; iOS 17_4; en_US; en; scale=3.00; 1170x2532; 584019219)',
  instagramAndroid:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A.240405.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 Instagram 327.0.0.40.97 Android (34/14; 420dpi; 1080x2205; Google/google; Pixel 8; shiba; shiba; en_US; 587265837)',
  facebookIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/450.0.0.38.108;FBBV/564431005;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.3.1;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/567052743]',
  facebookAndroid:
    'Mozilla/5.0 (Linux; Android 13; SM-S908B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.210 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/446.0.0.27.352;]',
  tiktokIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_32.5.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US ByteFullLocale/en isDarkMode/0 WKWebView/1 RevealType/Dialog BytedanceWebview/d8a21c6',
  tiktokAndroid:
    'Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.163 Mobile Safari/537.36 trill_320103 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/trill app_version/32.1.3 ByteLocale/en ByteFullLocale/en Region/US Spark/1.4.6.3-bugfix AppVersion/32.1.3 BytedanceWebview/d8a21c6',
  safariIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  safariIpad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  chromeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  safariMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  curl: 'curl/8.4.0',
};

const ALL: FactNeeds = { geo: true, place: true, ipType: true, os: true, inApp: true, language: true, params: true, time: true, variants: true };
const NONE: FactNeeds = { geo: false, place: false, ipType: false, os: false, inApp: false, language: false, params: false, time: false, variants: false };

/** IP facts that count their calls, so a test can prove what was not asked. */
function countingIp(): IpFacts & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    country: (ip) => (calls.push(`country ${ip}`), 'de'),
    place: (ip) => (calls.push(`place ${ip}`), { region: 'Bavaria', city: 'München' }),
    ipType: (ip) => (calls.push(`ipType ${ip}`), 'mobile'),
  };
}

const source = { linkId: '01J9Z7LINK', ip: '203.0.113.9', userAgent: UA.instagramIos, acceptLanguage: 'de-CH, en;q=0.5', query: 'utm_source=news&a=1&a=2', nowMs: 1_790_000_000_000 };

describe('requestFacts', () => {
  test('computes every fact asked for', () => {
    const ip = countingIp();
    const facts = requestFacts(source, ALL, ip);
    expect(facts).toEqual({
      country: 'DE',
      region: 'Bavaria',
      city: 'München',
      os: 'ios',
      ipType: 'mobile',
      inApp: true,
      languages: ['de', 'en'],
      params: new Map([['utm_source', 'news'], ['a', '1']]),
      nowMs: source.nowMs,
      // Hashed only when a variants rule asks (visitorDraw), from the visitor's key.
      visitorHash: null,
      visitor: { linkId: source.linkId, ip: source.ip, userAgent: source.userAgent },
    });
    expect(ip.calls.sort()).toEqual(['country 203.0.113.9', 'ipType 203.0.113.9', 'place 203.0.113.9']);
  });

  test('the visitor hash is worked out on the first draw, then kept', () => {
    const facts = requestFacts(source, ALL, countingIp());
    const expected = visitorHash(source.linkId, source.ip, source.userAgent);
    expect(visitorDraw(facts)).toBe(expected);
    expect(facts.visitorHash).toBe(expected);
    facts.visitor = { linkId: 'another', ip: source.ip, userAgent: null };
    expect(visitorDraw(facts)).toBe(expected);
    // Facts a test or the route test writes by hand carry the hash itself.
    expect(visitorDraw({ ...facts, visitorHash: 7, visitor: undefined })).toBe(7);
  });

  test('computes nothing that is not asked for', () => {
    const ip = countingIp();
    expect(requestFacts(source, NONE, ip)).toEqual({
      country: null,
      region: null,
      city: null,
      os: null,
      ipType: null,
      inApp: false,
      languages: [],
      params: new Map(),
      nowMs: source.nowMs,
      visitorHash: 0,
    });
    expect(ip.calls).toEqual([]);
  });
});

describe('operatingSystem', () => {
  test('iOS and iPadOS are ios, Android android, anything else with a user agent desktop', () => {
    expect(operatingSystem(UA.safariIphone)).toBe('ios');
    expect(operatingSystem(UA.safariIpad)).toBe('ios');
    expect(operatingSystem(UA.instagramIos)).toBe('ios');
    expect(operatingSystem(UA.chromeAndroid)).toBe('android');
    expect(operatingSystem(UA.tiktokAndroid)).toBe('android');
    expect(operatingSystem(UA.chromeWindows)).toBe('desktop');
    expect(operatingSystem(UA.safariMac)).toBe('desktop');
    expect(operatingSystem(UA.curl)).toBe('desktop');
    expect(operatingSystem(null)).toBeNull();
    expect(requestFacts({ ...source, userAgent: '' }, ALL, countingIp()).os).toBeNull();
  });
});

describe('one entry per user agent', () => {
  test('property: the OS and in-app answers do not depend on which is asked first, or how often', () => {
    const agents = Object.values(UA);
    // Worked out without the memo: ua-parser-js's OS family and inapp-spy, as facts.ts reads them.
    const osOf = (ua: string) => ({ iOS: 'ios', Android: 'android' })[parseUserAgent(ua).osFamily ?? ''] ?? 'desktop';
    const expected = new Map(agents.map((ua) => [ua, { os: ua === '' ? null : osOf(ua), inApp: InAppSpy({ ua }).isInApp }]));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...agents), fc.boolean()), { maxLength: 40 }), (asks) => {
        for (const [ua, osFirst] of asks) {
          // A new string each time, as each request's header is.
          const fresh = `${ua}!`.slice(0, -1);
          const answers = osFirst ? [operatingSystem(fresh), inAppBrowser(fresh)] : [inAppBrowser(fresh), operatingSystem(fresh)].reverse();
          expect(answers as unknown[]).toEqual([expected.get(ua)!.os, expected.get(ua)!.inApp]);
        }
      }),
    );
  });
});

describe('inAppBrowser', () => {
  test('Instagram, Facebook and TikTok browsers on iOS and Android are in-app', () => {
    for (const ua of [UA.instagramIos, UA.instagramAndroid, UA.facebookIos, UA.facebookAndroid, UA.tiktokIos, UA.tiktokAndroid]) expect(inAppBrowser(ua)).toBe(true);
  });
  test('browsers and no user agent are not', () => {
    for (const ua of [UA.safariIphone, UA.safariIpad, UA.chromeAndroid, UA.chromeWindows, UA.safariMac, null, '']) expect(inAppBrowser(ua)).toBe(false);
  });
  test('a repeated user agent gets the same answer from the cache', () => {
    expect(inAppBrowser(UA.facebookIos)).toBe(true);
    expect(inAppBrowser(UA.facebookIos)).toBe(true);
    expect(inAppBrowser(`${UA.safariIphone} `.repeat(300))).toBe(false);
  });
});

describe('acceptedLanguages', () => {
  test('primary subtags by q, highest first, ties in header order, q=0 and repeats left out', () => {
    expect(acceptedLanguages('de-CH, en;q=0.5, de;q=0.8')).toEqual(['de', 'en']);
    expect(acceptedLanguages('en-US,en;q=0.9,fr;q=0.8,de;q=0.95')).toEqual(['en', 'de', 'fr']);
    expect(acceptedLanguages('fr;q=0.3, ja;q=0.3, pt-BR;q=0.7')).toEqual(['pt', 'fr', 'ja']);
    expect(acceptedLanguages('en;q=0, de')).toEqual(['de']);
    expect(acceptedLanguages('FIL, zh-Hant-TW;q=0.5')).toEqual(['fil', 'zh']);
  });
  test('wildcards, private tags and malformed entries are skipped', () => {
    expect(acceptedLanguages('*, x-klingon, i-enochian, en')).toEqual(['en']);
    expect(acceptedLanguages('en;q=2, de;q=abc, fr;q=0.5')).toEqual(['fr']);
    expect(acceptedLanguages('')).toEqual([]);
    expect(acceptedLanguages(null)).toEqual([]);
    expect(acceptedLanguages(';;;,,,')).toEqual([]);
  });
  test('property: the answer is lower-case primary subtags without repeats, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        const languages = acceptedLanguages(header);
        for (const language of languages) expect(language).toMatch(/^[a-z]{2,3}$/);
        expect(new Set(languages).size).toBe(languages.length);
      }),
    );
  });
});

describe('firstParams', () => {
  test('the first value of each parameter, form-decoded as URLSearchParams does', () => {
    expect(firstParams('a=1&b=x+y&a=2&c=%C3%BC&d&e=')).toEqual(new Map([['a', '1'], ['b', 'x y'], ['c', 'ü'], ['d', ''], ['e', '']]));
    expect(firstParams('')).toEqual(new Map());
    // Bytes that are no UTF-8 become U+FFFD, as in every WHATWG URL reader.
    expect(firstParams('bad=%E0%A4%A')).toEqual(new Map([['bad', '\uFFFD%A']]));
  });

  test('reads any query exactly as a whole URLSearchParams does, first value per name, only the names asked', () => {
    const reference = (query: string) => {
      const params = new Map<string, string>();
      for (const [name, value] of new URLSearchParams(query)) if (!params.has(name)) params.set(name, value);
      return params;
    };
    // Pieces built from the characters that matter to the reader: separators, escapes (valid,
    // cut short, not UTF-8), plus signs, a leading '?', and text outside ASCII.
    const unit = fc.constantFrom('a', 'b', 'Z', '0', '=', '&', '&&', '+', '%', '%2', '%41', '%2B', '%26', '%3D', '%C3%BC', '%E0%A4', '%FF', '?', '#', ';', ' ', 'ü', '😀', '\uD800');
    // `only`: names a rule may read, plain or needing decoding, and some no query here spells.
    const only = fc.option(fc.subarray(['a', 'b', 'ab', 'ba', 'Z0', 'a b', 'ü', '', '?a', 'a&', '%', '😀', 'zz']), { nil: undefined });
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 24 }), only, (units, names) => {
        const query = units.join('');
        const expected = [...reference(query)].filter(([name]) => names === undefined || names.includes(name));
        expect([...firstParams(query, names)]).toEqual(expected);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('visitorHash', () => {
  test('is a stable unsigned 32-bit number that depends on each part', () => {
    const base = visitorHash('link', '203.0.113.9', 'UA');
    expect(base).toBe(visitorHash('link', '203.0.113.9', 'UA'));
    expect(Number.isInteger(base) && base >= 0 && base <= 0xffffffff).toBe(true);
    const others = [visitorHash('link2', '203.0.113.9', 'UA'), visitorHash('link', '203.0.113.10', 'UA'), visitorHash('link', '203.0.113.9', 'UA2'), visitorHash('link', '203.0.113.9', null)];
    for (const other of others) expect(other).not.toBe(base);
    // The separator keeps the parts apart: moving a character between them changes the hash.
    expect(visitorHash('ab', 'c', null)).not.toBe(visitorHash('a', 'bc', null));
  });
  test('spreads visitors evenly over a 70/30 split', () => {
    let first = 0;
    for (let i = 0; i < 20_000; i++) if (visitorHash('link', `10.0.${i >> 8}.${i & 255}`, UA.safariIphone) % 100 < 70) first++;
    expect(first / 20_000).toBeGreaterThan(0.68);
    expect(first / 20_000).toBeLessThan(0.72);
  });
});

describe('zonedHourAndWeekday', () => {
  test('Europe/Berlin across the spring and autumn DST changes', () => {
    // 2026-03-29: 02:00 CET becomes 03:00 CEST at 01:00 UTC. 2026-10-25: 03:00 CEST becomes 02:00 CET at 01:00 UTC.
    const at = (iso: string) => zonedHourAndWeekday('Europe/Berlin', Date.parse(iso));
    expect(at('2026-03-29T00:59:00Z')).toEqual({ hour: 1, weekday: 'sun' });
    expect(at('2026-03-29T01:00:00Z')).toEqual({ hour: 3, weekday: 'sun' });
    expect(at('2026-03-28T23:00:00Z')).toEqual({ hour: 0, weekday: 'sun' });
    expect(at('2026-03-28T22:59:00Z')).toEqual({ hour: 23, weekday: 'sat' });
    expect(at('2026-10-25T00:30:00Z')).toEqual({ hour: 2, weekday: 'sun' });
    expect(at('2026-10-25T01:30:00Z')).toEqual({ hour: 2, weekday: 'sun' });
    expect(at('2026-10-25T02:00:00Z')).toEqual({ hour: 3, weekday: 'sun' });
    expect(at('2026-10-24T21:59:59Z')).toEqual({ hour: 23, weekday: 'sat' });
  });

  test('half- and quarter-hour zones and a half-hour DST change', () => {
    expect(zonedHourAndWeekday('Asia/Kolkata', Date.parse('2026-09-02T18:29:00Z'))).toEqual({ hour: 23, weekday: 'wed' });
    expect(zonedHourAndWeekday('Asia/Kolkata', Date.parse('2026-09-02T18:30:00Z'))).toEqual({ hour: 0, weekday: 'thu' });
    expect(zonedHourAndWeekday('Asia/Kathmandu', Date.parse('2026-09-02T18:14:00Z'))).toEqual({ hour: 23, weekday: 'wed' });
    expect(zonedHourAndWeekday('Asia/Kathmandu', Date.parse('2026-09-02T18:15:00Z'))).toEqual({ hour: 0, weekday: 'thu' });
    // Lord Howe moves by 30 minutes: 02:00 +10:30 becomes 02:30 +11 on 2026-10-04 (15:30 UTC on the 3rd).
    expect(zonedHourAndWeekday('Australia/Lord_Howe', Date.parse('2026-10-03T15:29:00Z'))).toEqual({ hour: 1, weekday: 'sun' });
    expect(zonedHourAndWeekday('Australia/Lord_Howe', Date.parse('2026-10-03T15:30:00Z'))).toEqual({ hour: 2, weekday: 'sun' });
  });

  test("a change off the quarter hour: St. John's went to daylight time at 00:01 local time in 1991", () => {
    // 1991-04-07: 00:01 NST (-03:30) became 01:01 NDT (-02:30), at 03:31 UTC.
    const at = (iso: string) => zonedHourAndWeekday('America/St_Johns', Date.parse(iso));
    expect(at('1991-04-07T03:30:59Z')).toEqual({ hour: 0, weekday: 'sun' });
    expect(at('1991-04-07T03:31:00Z')).toEqual({ hour: 1, weekday: 'sun' });
    expect(at('1991-04-07T03:44:59Z')).toEqual({ hour: 1, weekday: 'sun' });
    expect(at('1991-04-07T03:30:00Z')).toEqual({ hour: 0, weekday: 'sun' });
  });

  test('answers shared objects: repeated calls allocate no new answer', () => {
    const now = Date.parse('2026-09-02T10:05:00Z');
    expect(zonedHourAndWeekday('America/New_York', now)).toBe(zonedHourAndWeekday('America/New_York', now + 50 * 60_000));
    expect(Object.isFrozen(zonedHourAndWeekday('UTC', now))).toBe(true);
  });

  test('property: agrees with Intl for any instant, also when instants come out of order', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/Sao_Paulo', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'America/St_Johns', 'Pacific/Chatham'];
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2200, 0, 1) }), (tz, nowMs) => {
        expect(zonedHourAndWeekday(tz, nowMs)).toEqual(wallClock(tz, nowMs) as never);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('canonicalTimeZone', () => {
  test('IANA names in their canonical case; unknown names and bare offsets refused', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('utc')).toBe('UTC');
    for (const bad of ['Mars/Olympus', '+01:00', '-0500', '', 'Z', 'x'.repeat(65)]) expect(canonicalTimeZone(bad)).toBeNull();
  });
});
