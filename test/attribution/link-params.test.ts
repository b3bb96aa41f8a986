import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { clickIdFromUrl, parseInstallReferrer } from '../../src/attribution/link-params';

const clickId = fc.stringMatching(/^[A-Za-z0-9_-]{4,64}$/);
const gclid = fc.stringMatching(/^[A-Za-z0-9_-]{10,120}$/);
/** Other parameters a referrer or deep link carries: anything that does not name our two keys. */
const otherParam = fc
  .tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 24 }))
  .filter(([key, value]) => !/svc_click_id|gclid/i.test(`${key}${value}`) && !/svc_click_id|gclid/i.test(decodeURIComponentSafe(`${key}${value}`)));
const encodeOnce = (text: string) => encodeURIComponent(text);
const encodeTimes = (text: string, times: number) => Array.from({ length: times }).reduce<string>((acc) => encodeOnce(acc), text);

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function query(params: [string, string][]): string {
  return params.map(([k, v]) => `${encodeOnce(k)}=${encodeOnce(v)}`).join('&');
}

describe('install referrer parser', () => {
  test('finds svc_click_id in every shape a Play referrer arrives in', () => {
    fc.assert(
      fc.property(
        clickId,
        fc.array(otherParam, { maxLength: 5 }),
        fc.nat({ max: 5 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom('bare', 'referrer-param', 'store-url', 'market-url'),
        (id, others, position, encodings, wrapper) => {
          const params = [...others];
          params.splice(position % (params.length + 1), 0, ['svc_click_id', id]);
          const inner = encodeTimes(query(params), encodings);
          const raw =
            wrapper === 'bare'
              ? inner
              : wrapper === 'referrer-param'
                ? `referrer=${encodeOnce(inner)}`
                : wrapper === 'store-url'
                  ? `https://play.google.com/store/apps/details?id=com.example.app&referrer=${encodeOnce(inner)}`
                  : `market://details?id=com.example.app&referrer=${encodeOnce(inner)}`;
          expect(parseInstallReferrer(raw).clickId).toBe(id);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('the literal store-redirect form referrer=svc_click_id=<id> and the Google Ads gclid', () => {
    expect(parseInstallReferrer('referrer=svc_click_id=01HZXY1234ABCD').clickId).toBe('01HZXY1234ABCD');
    expect(parseInstallReferrer('svc_click_id%3D01HZXY1234ABCD%26utm_source%3Dads').clickId).toBe('01HZXY1234ABCD');
    expect(parseInstallReferrer('svc_click_id%253D01HZXY1234ABCD').clickId).toBe('01HZXY1234ABCD');
    const ads = parseInstallReferrer('utm_source=google&utm_medium=cpc&gclid=Cj0KCQjw-abc_DEF123');
    expect(ads).toEqual({ clickId: null, gclid: 'Cj0KCQjw-abc_DEF123' });
    expect(parseInstallReferrer('utm_source=google-play&utm_medium=organic')).toEqual({ clickId: null, gclid: null });
  });

  test('finds a gclid next to the click id at any encoding depth', () => {
    fc.assert(
      fc.property(clickId, gclid, fc.integer({ min: 0, max: 3 }), (id, g, encodings) => {
        const raw = encodeTimes(query([['gclid', g], ['svc_click_id', id]]), encodings);
        expect(parseInstallReferrer(raw)).toEqual({ clickId: id, gclid: g });
      }),
    );
  });

  test('never throws and never invents a click id', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (raw) => {
        const parsed = parseInstallReferrer(raw);
        if (!/svc_click_id/i.test(raw) && !/svc(%5F|_)click/i.test(raw) && !raw.includes('%')) expect(parsed.clickId).toBeNull();
        if (parsed.clickId !== null) expect(parsed.clickId).toMatch(/^[A-Za-z0-9_-]{4,64}$/);
      }),
      { numRuns: 1000 },
    );
  });

  test('values that are not click ids are refused', () => {
    expect(parseInstallReferrer('svc_click_id=abc').clickId).toBeNull();
    expect(parseInstallReferrer(`svc_click_id=${'a'.repeat(65)}`).clickId).toBeNull();
    expect(parseInstallReferrer('svc_click_id=ab%20cd').clickId).toBeNull();
    expect(parseInstallReferrer('svc_click_id=<script>').clickId).toBeNull();
    expect(parseInstallReferrer('svc_click_id=%E0%A4%A').clickId).toBeNull();
  });
});

const scheme = fc.stringMatching(/^[a-z][a-z0-9+.-]{0,10}$/).filter((s) => !['http', 'https'].includes(s));
const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/);

describe('deep link click id parser', () => {
  test('custom schemes and universal links, the id anywhere in the query or the fragment', () => {
    fc.assert(
      fc.property(
        scheme,
        fc.array(segment, { minLength: 0, maxLength: 4 }),
        fc.array(otherParam, { maxLength: 4 }),
        clickId,
        fc.nat({ max: 4 }),
        fc.constantFrom('query', 'fragment', 'universal', 'nested'),
        (sch, path, others, id, position, form) => {
          const params = [...others];
          params.splice(position % (params.length + 1), 0, ['svc_click_id', id]);
          const q = query(params);
          const deepLink = `${sch}://${path.join('/')}`;
          const url =
            form === 'query'
              ? `${deepLink}?${q}`
              : form === 'fragment'
                ? `${deepLink}#${q}`
                : form === 'universal'
                  ? `https://links.example.com/${path.join('/')}?${q}#section`
                  : `https://links.example.com/open?deep_link=${encodeOnce(`${deepLink}?${q}`)}`;
          expect(clickIdFromUrl(url)).toBe(id);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('the spec example and links without one', () => {
    expect(clickIdFromUrl('myapp://product/42?svc_click_id=01J0ABCDEF0123456789XYZ')).toBe('01J0ABCDEF0123456789XYZ');
    expect(clickIdFromUrl('myapp://product/42')).toBeNull();
    expect(clickIdFromUrl('myapp://product/42?click_id=01J0ABCDEF')).toBeNull();
    expect(clickIdFromUrl(null)).toBeNull();
    expect(clickIdFromUrl('')).toBeNull();
  });

  test('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (raw) => {
        const id = clickIdFromUrl(raw);
        if (id !== null) expect(id).toMatch(/^[A-Za-z0-9_-]{4,64}$/);
      }),
      { numRuns: 1000 },
    );
  });
});
