import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { MAX_LANDING_URL_LENGTH } from '../../../src/tracking/redirect/landing-url';
import { isPlayStoreUrl, PASS_THROUGH_EXCLUDED, passThroughParams, withSmartClickId } from '../../../src/tracking/smartlinks/targets';

const ID = '01JCLICK00000000000000000A';
const PLAY = 'https://play.google.com/store/apps/details';

/** Raw query pieces of a URL string (between '?' and '#'), in order. */
function rawPieces(url: string): string[] {
  const beforeHash = url.split('#')[0]!;
  const at = beforeHash.indexOf('?');
  return at < 0 ? [] : beforeHash.slice(at + 1).split('&').filter((piece) => piece !== '');
}
const nameOf = (piece: string) => decodeURIComponent(piece.split('=')[0]!.replaceAll('+', ' '));
const fragmentOf = (url: string) => (url.includes('#') ? url.slice(url.indexOf('#')) : '');
const withoutClickId = (list: string[]) => list.filter((piece) => nameOf(piece) !== 'svc_click_id');

describe('withSmartClickId: web and deep-link targets', () => {
  const cases: [string, string][] = [
    ['https://shop.example.com/p', `https://shop.example.com/p?svc_click_id=${ID}`],
    ['https://shop.example.com/p?a=1&svc_click_id=old&b=%20x#top', `https://shop.example.com/p?a=1&b=%20x&svc_click_id=${ID}#top`],
    ['https://links.shop.example/app/product/1?x=1', `https://links.shop.example/app/product/1?x=1&svc_click_id=${ID}`],
    ['myapp://product/1?x=1', `myapp://product/1?x=1&svc_click_id=${ID}`],
    ['myapp://product/1?svc_click_id=a&svc%5Fclick%5Fid=b', `myapp://product/1?svc_click_id=${ID}`],
    ['myapp://product/1#/route?tab=2', `myapp://product/1?svc_click_id=${ID}#/route?tab=2`],
    ['myapp:open', `myapp:open?svc_click_id=${ID}`],
    ['myapp:open?screen=cart#x', `myapp:open?screen=cart&svc_click_id=${ID}#x`],
    ['com.example.app://open', `com.example.app://open?svc_click_id=${ID}`],
  ];
  for (const [target, expected] of cases) {
    test(`${target} -> ${expected}`, () => expect(withSmartClickId(target, ID)).toBe(expected));
  }

  test('an id with reserved characters is encoded and reads back as itself', () => {
    const out = withSmartClickId('myapp://p?x=1', 'a&b=c d');
    expect(out).toBe('myapp://p?x=1&svc_click_id=a%26b%3Dc%20d');
    expect(new URL(out).searchParams.getAll('svc_click_id')).toEqual(['a&b=c d']);
  });
});

describe('withSmartClickId: Play Store targets', () => {
  test('no referrer: referrer=svc_click_id%3D<id> is added, other parameters kept', () => {
    const out = withSmartClickId(`${PLAY}?id=com.example.app&hl=en`, ID);
    expect(out).toBe(`${PLAY}?id=com.example.app&hl=en&referrer=svc_click_id%3D${ID}`);
    const url = new URL(out);
    expect(url.searchParams.get('referrer')).toBe(`svc_click_id=${ID}`);
    expect(url.searchParams.getAll('svc_click_id')).toEqual([]);
  });

  test('an existing referrer is merged in place, its raw pieces kept', () => {
    const out = withSmartClickId(`${PLAY}?id=com.x&referrer=utm_source%3Dgoogle%26utm_term%3Drunning%252Bshoes&hl=en`, ID);
    expect(out).toBe(`${PLAY}?id=com.x&referrer=utm_source%3Dgoogle%26utm_term%3Drunning%252Bshoes%26svc_click_id%3D${ID}&hl=en`);
    expect(new URL(out).searchParams.get('referrer')).toBe(`utm_source=google&utm_term=running%2Bshoes&svc_click_id=${ID}`);
  });

  test('an svc_click_id inside the referrer or at the top level is replaced, a second referrer dropped', () => {
    const out = withSmartClickId(`${PLAY}?svc_click_id=top&id=com.x&referrer=svc_click_id%3Dold%26a%3D1&referrer=second#frag`, ID);
    expect(out).toBe(`${PLAY}?id=com.x&referrer=a%3D1%26svc_click_id%3D${ID}#frag`);
    const url = new URL(out);
    expect(url.searchParams.getAll('referrer')).toEqual([`a=1&svc_click_id=${ID}`]);
    expect(url.searchParams.getAll('svc_click_id')).toEqual([]);
  });

  test('an id needing encoding is encoded twice: once for the referrer, once for the query', () => {
    const out = withSmartClickId(`${PLAY}?id=com.x`, 'a&b');
    expect(out).toBe(`${PLAY}?id=com.x&referrer=svc_click_id%3Da%2526b`);
    const referrer = new URL(out).searchParams.get('referrer')!;
    expect(new URLSearchParams(referrer).getAll('svc_click_id')).toEqual(['a&b']);
  });

  test('which hosts are the Play Store', () => {
    for (const url of [`${PLAY}?id=x`, 'http://play.google.com/store/apps/details?id=x', 'https://PLAY.GOOGLE.COM/store', 'https://play.google.com', 'https://play.google.com:443/x', 'https://play.google.com?id=x']) {
      expect([url, isPlayStoreUrl(url)]).toEqual([url, true]);
    }
    for (const url of ['https://play.google.com.evil.example/store', 'https://notplay.google.com/store', 'https://evil.example/?u=https://play.google.com/', 'market://details?id=x', 'https://google.com/play.google.com']) {
      expect([url, isPlayStoreUrl(url)]).toEqual([url, false]);
    }
  });
});

const safeText = fc.stringMatching(/^[A-Za-z0-9_.~-]{1,8}$/);
const encodedText = fc.string({ maxLength: 12 }).map(encodeURIComponent);
const paramName = fc.oneof(safeText, encodedText.filter((s) => s !== ''), fc.constantFrom('svc_click_id', 'svc%5Fclick%5Fid', 'url', 'x'));
const piece = fc.tuple(paramName, fc.option(fc.oneof(safeText, encodedText), { nil: undefined })).map(([n, v]) => (v === undefined ? n : `${n}=${v}`));
const fragment = fc.option(fc.stringMatching(/^[A-Za-z0-9/?&=._~-]{0,12}$/).map((f) => `#${f}`), { nil: '' });
const host = fc.stringMatching(/^[a-z][a-z0-9]{0,9}(\.[a-z]{2,5})?$/);
const path = fc.array(safeText, { maxLength: 3 }).map((segments) => segments.map((s) => `/${s}`).join(''));
const clickId = fc.oneof(fc.stringMatching(/^[0-9A-Z]{26}$/), fc.string({ minLength: 1, maxLength: 20 }));
const query = fc.array(piece, { maxLength: 6 }).map((list) => (list.length === 0 ? '' : `?${list.join('&')}`));

/** Web targets, custom schemes with an authority, and `scheme:path` forms. */
const target = fc
  .tuple(fc.constantFrom('http', 'https', 'myapp', 'fb123', 'com.example.app', 'x-y+z'), fc.boolean(), host, path, query, fragment)
  .map(([scheme, opaque, h, p, q, f]) => (opaque && scheme.length > 5 ? `${scheme}:${h}${p}${q}${f}` : `${scheme}://${h}${p}${q}${f}`))
  .filter((t) => !isPlayStoreUrl(t));

describe('withSmartClickId properties', () => {
  test('any target: parses, carries the id exactly once, keeps every other piece in order and the fragment', () => {
    fc.assert(
      fc.property(target, clickId, (t, id) => {
        const out = withSmartClickId(t, id);
        const url = new URL(out);
        expect(url.searchParams.getAll('svc_click_id')).toEqual([id]);
        expect(withoutClickId(rawPieces(out))).toEqual(withoutClickId(rawPieces(t)));
        expect(fragmentOf(out)).toBe(fragmentOf(t));
        expect(withSmartClickId(out, id)).toBe(out);
      }),
      { numRuns: 2000 },
    );
  });

  const innerPiece = fc.tuple(fc.oneof(safeText, fc.constant('svc_click_id')), fc.oneof(safeText, encodedText)).map(([n, v]) => `${n}=${v}`);
  const playTarget = fc
    .tuple(fc.array(fc.oneof(piece, fc.constant('referrer=second%3D2')), { maxLength: 4 }), fc.option(fc.array(innerPiece, { maxLength: 4 }), { nil: undefined }), fc.nat(4), fragment)
    .map(([others, inner, at, f]) => {
      const list = ['id=com.example.app', ...others];
      if (inner !== undefined) list.splice(Math.min(at, list.length), 0, `referrer=${encodeURIComponent(inner.join('&'))}`);
      return `${PLAY}?${list.join('&')}${f}`;
    });

  test('a Play target: one referrer carrying the id exactly once, no top-level id, everything else kept', () => {
    fc.assert(
      fc.property(playTarget, clickId, (t, id) => {
        const out = withSmartClickId(t, id);
        const url = new URL(out);
        expect(url.searchParams.getAll('svc_click_id')).toEqual([]);
        const referrers = url.searchParams.getAll('referrer');
        expect(referrers).toHaveLength(1);
        const decoded = new URLSearchParams(referrers[0]!);
        expect(decoded.getAll('svc_click_id')).toEqual([id]);
        // The first referrer of the target, decoded, minus its click id: what the app reads besides the id.
        const before = [...new URLSearchParams(new URL(t).searchParams.get('referrer') ?? '').entries()].filter(([n]) => n !== 'svc_click_id');
        expect([...decoded.entries()].filter(([n]) => n !== 'svc_click_id')).toEqual(before);
        const others = (list: string[]) => withoutClickId(list).filter((p) => nameOf(p) !== 'referrer');
        expect(others(rawPieces(out))).toEqual(others(rawPieces(t)));
        expect(fragmentOf(out)).toBe(fragmentOf(t));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('passThroughParams', () => {
  test('visitor parameters are appended raw, before the fragment; the target wins; controls and the click id never pass', () => {
    const out = passThroughParams('https://a.example/p?x=1#f', 'utm_source=news&x=2&svc_click_id=evil&url=https%3A%2F%2Fevil.example&r=1&force_transparent=true&flag&q=a%20b+c', PASS_THROUGH_EXCLUDED);
    expect(out).toBe('https://a.example/p?x=1&utm_source=news&flag&q=a%20b+c#f');
  });

  test('a target without a query gets one; an empty query changes nothing; repeated names pass together', () => {
    expect(passThroughParams('myapp://open', 'a=1&a=2&&b', PASS_THROUGH_EXCLUDED)).toBe('myapp://open?a=1&a=2&b');
    expect(passThroughParams('myapp://open#x', '', PASS_THROUGH_EXCLUDED)).toBe('myapp://open#x');
    expect(passThroughParams('https://a.example/?x=1', 'x=2', PASS_THROUGH_EXCLUDED)).toBe('https://a.example/?x=1');
  });

  test('the exclusion set is the caller’s, and names are compared decoded', () => {
    expect(passThroughParams('https://a.example/', 'secret=1&ok=2&svc%5Fclick%5Fid=3', new Set(['secret']))).toBe('https://a.example/?ok=2');
    expect(passThroughParams('https://a.example/?utm%5Fsource=a', 'utm_source=b', new Set())).toBe('https://a.example/?utm%5Fsource=a');
  });

  test('text a Location header cannot hold is percent-encoded; a # in the query cannot add a fragment', () => {
    expect(passThroughParams('https://a.example/', 'q=caf\u00e9 x\r\nSet-Cookie:%20a=1', new Set())).toBe('https://a.example/?q=caf%C3%A9%20x%0D%0ASet-Cookie:%20a=1');
    expect(passThroughParams('https://a.example/#top', 'a=1#b=2', new Set())).toBe('https://a.example/?a=1#top');
  });

  test('parameters past the Location limit are left out, leaving room for the click id', () => {
    const big = Array.from({ length: 400 }, (_, i) => `p${i}=${'v'.repeat(40)}`).join('&');
    const out = passThroughParams('https://a.example/', big, PASS_THROUGH_EXCLUDED);
    expect(out.length).toBeLessThanOrEqual(MAX_LANDING_URL_LENGTH - 128);
    expect(out.length).toBeGreaterThan(MAX_LANDING_URL_LENGTH - 256);
    expect(withSmartClickId(out, ID).length).toBeLessThanOrEqual(MAX_LANDING_URL_LENGTH);
  });

  test('property: with the click id added after, the id is there once, the target keeps its pieces, visitors add only new names', () => {
    fc.assert(
      fc.property(target, fc.array(piece, { maxLength: 6 }), clickId, (t, visitor, id) => {
        const passed = passThroughParams(t, visitor.join('&'), PASS_THROUGH_EXCLUDED);
        const out = withSmartClickId(passed, id);
        expect(new URL(out).searchParams.getAll('svc_click_id')).toEqual([id]);
        const own = rawPieces(t);
        const ownNames = new Set(own.map(nameOf));
        const expected = visitor.filter((p) => !PASS_THROUGH_EXCLUDED.has(nameOf(p)) && !ownNames.has(nameOf(p)));
        expect(rawPieces(passed)).toEqual([...own, ...expected]);
        expect(fragmentOf(out)).toBe(fragmentOf(t));
      }),
      { numRuns: 2000 },
    );
  });
});
