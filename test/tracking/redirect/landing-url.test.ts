import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { parseHttpUrl } from '../../../src/shared/net/web-url';
import { resolveLandingUrl, withClickId } from '../../../src/tracking/redirect/landing-url';
import { rawQuery } from '../../../src/tracking/query-string';
import { CLICK_ID_PARAM } from '../../../src/tracking/tracking.model';

const encode = (value: string, times: number) => {
  let out = value;
  for (let i = 0; i < times; i++) out = encodeURIComponent(out);
  return out;
};

/** The raw `url` value as the redirect reads it from a request URL carrying `value`. */
const throughQuery = (value: string) => rawQuery(`http://track.test.local/c/s?gclid=x&url=${value}&k=1`).get('url')!;

const landingUrls = fc.webUrl({ withQueryParameters: true, withFragments: true });

/** URLs whose query and path carry percent-encoded text that must survive untouched. */
const urlsWithEncodedText = fc
  .tuple(fc.domain(), fc.string({ unit: 'binary', minLength: 1 }), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }))
  .map(([host, path, query, fragment]) => `https://${host}/${encodeURIComponent(path)}?q=${encodeURIComponent(query)}&next=%2Fcart%3Fa%3D1#${encodeURIComponent(fragment)}`);

describe('resolveLandingUrl', () => {
  test('a URL encoded once, twice or three times decodes to exactly itself', () => {
    fc.assert(
      fc.property(landingUrls, fc.integer({ min: 1, max: 3 }), (url, depth) => {
        const resolved = resolveLandingUrl(throughQuery(encode(url, depth)));
        expect(resolved).toMatchObject({ ok: true, url });
      }),
      { numRuns: 500 },
    );
  });

  test('encoded characters inside the landing URL are never decoded further', () => {
    fc.assert(
      fc.property(urlsWithEncodedText, fc.integer({ min: 1, max: 3 }), (url, depth) => {
        expect(resolveLandingUrl(throughQuery(encode(url, depth)))).toMatchObject({ ok: true, url });
      }),
      { numRuns: 500 },
    );
  });

  test('an unencoded absolute URL is kept byte for byte', () => {
    const url = 'https://shop.example.com/p/a%20b?q=c%2B%2B&r=%2Fx';
    expect(resolveLandingUrl(url)).toEqual({ ok: true, url, host: 'shop.example.com' });
    expect(resolveLandingUrl('HTTPS://Shop.Example.com./A')).toEqual({ ok: true, url: 'HTTPS://Shop.Example.com./A', host: 'shop.example.com' });
  });

  test('more than three layers of encoding is refused', () => {
    fc.assert(
      fc.property(landingUrls, (url) => {
        expect(resolveLandingUrl(encode(url, 4)).ok).toBe(false);
      }),
    );
  });

  test('non-http(s), relative, protocol-relative and malformed destinations are refused at every depth', () => {
    const unsafe = [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)//https://x.com',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox',
      'ftp://files.example.com/a',
      'file:///etc/passwd',
      'mailto:a@example.com',
      '/relative/path?x=1',
      'relative/path',
      '//evil.example.com/x',
      'https:evil.example.com',
      'http://',
      'https://',
      'http:///x',
      'https:\\\\evil.example.com',
      'http://exa mple.com/',
      'https://[::1/',
      'www.example.com',
      '',
      '%',
      '%E0%A4%A',
    ];
    for (const value of unsafe) {
      for (let depth = 0; depth <= 3; depth++) {
        expect({ value, depth, result: resolveLandingUrl(encode(value, depth)).ok }).toEqual({ value, depth, result: false });
      }
    }
  });

  test('any input either fails or yields an http(s) URL that is safe in a header', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const resolved = resolveLandingUrl(value);
        if (resolved.ok) {
          expect(resolved.url).toMatch(/^https?:\/\/[\x21-\x7e]+$/i);
          expect(() => new Headers({ Location: resolved.url })).not.toThrow();
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('control characters and blanks are refused; non-ASCII text is percent-encoded, not passed into the header', () => {
    for (const raw of ['https://a.example.com/x\r\nSet-Cookie: a=b', 'https://a.example.com/a b', 'https://a.example.com/\u0085', 'https://a.example.com/\u3000']) {
      expect(resolveLandingUrl(encodeURIComponent(raw))).toEqual({ ok: false, reason: 'must not contain blanks, control characters or backslashes' });
    }
    expect(resolveLandingUrl(encodeURIComponent('https://bücher.example/ü?q=日本'))).toEqual({
      ok: true,
      url: 'https://b%C3%BCcher.example/%C3%BC?q=%E6%97%A5%E6%9C%AC',
      host: 'xn--bcher-kva.example',
    });
  });

  test('property: a decoded landing URL is accepted exactly when it would be accepted as a link destination', () => {
    const near = fc.oneof(
      landingUrls,
      fc.webUrl({ authoritySettings: { withUserInfo: true } }),
      fc.tuple(landingUrls, fc.nat(60), fc.constantFrom('@', '\\', ' ', '\t', '\r\n', '\u0000', '\u007f', '\u0085', '\u00a0', '\u2028', 'é', ':'))
        .map(([url, at, piece]) => url.slice(0, at) + piece + url.slice(at)),
      fc.string({ maxLength: 40 }).map((tail) => `https://${tail}`),
    );
    fc.assert(
      fc.property(near, fc.integer({ min: 1, max: 3 }), (url, depth) => {
        // parseHttpUrl has the stricter length bound; within it the two must agree.
        if (url.length > 2048) return;
        const asLanding = resolveLandingUrl(throughQuery(encode(url, depth)));
        const asDestination = parseHttpUrl(url);
        expect([url, asLanding.ok]).toEqual([url, 'value' in asDestination]);
        if (asLanding.ok) expect(asLanding.host).toBe(new URL(url).hostname.replace(/\.$/, ''));
      }),
      { numRuns: 3000 },
    );
  });
});

/** Splits a URL the way a browser would: base, query pieces, fragment. */
function parts(url: string) {
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt < 0 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const query = queryAt < 0 ? '' : beforeHash.slice(queryAt + 1);
  return {
    base: queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt),
    pieces: query === '' ? [] : query.split('&'),
    fragment: hashAt < 0 ? null : url.slice(hashAt),
  };
}

const isClickIdPiece = (piece: string) => piece.split('=')[0] === CLICK_ID_PARAM;

describe('withClickId', () => {
  const clickIds = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  /** Landing URLs, some already carrying one or more svc_click_id pairs anywhere in the query. */
  const urlsWithOldIds = fc
    .tuple(landingUrls, fc.array(fc.tuple(fc.nat(), fc.string({ unit: 'grapheme-ascii' })), { maxLength: 3 }))
    .map(([url, olds]) => {
      const { base, pieces, fragment } = parts(url);
      for (const [at, value] of olds) pieces.splice(at % (pieces.length + 1), 0, `${CLICK_ID_PARAM}=${encodeURIComponent(value)}`);
      return `${base}${pieces.length ? `?${pieces.join('&')}` : ''}${fragment ?? ''}`;
    });

  test('svc_click_id is present exactly once, the rest of the query is kept byte for byte and the fragment stays last', () => {
    fc.assert(
      fc.property(urlsWithOldIds, clickIds, (url, id) => {
        const before = parts(url);
        const after = parts(withClickId(url, id));
        expect(after.base).toBe(before.base);
        expect(after.fragment).toBe(before.fragment);
        expect(after.pieces.filter(isClickIdPiece)).toEqual([`${CLICK_ID_PARAM}=${id}`]);
        expect(after.pieces.filter((p) => !isClickIdPiece(p))).toEqual(before.pieces.filter((p) => !isClickIdPiece(p)));
        expect(after.pieces[after.pieces.length - 1]).toBe(`${CLICK_ID_PARAM}=${id}`);
      }),
      { numRuns: 1000 },
    );
  });

  test('the same landing URL gives each click its own id (slots are remembered, ids never are), any id encoded as a query value', () => {
    fc.assert(
      fc.property(urlsWithOldIds, fc.array(fc.string({ unit: 'grapheme-ascii' }), { minLength: 2, maxLength: 4 }), (url, ids) => {
        for (const id of ids) {
          const pieces = parts(withClickId(url, id)).pieces;
          expect(pieces[pieces.length - 1]).toBe(`${CLICK_ID_PARAM}=${encodeURIComponent(id)}`);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('applying it twice keeps only the second id', () => {
    fc.assert(
      fc.property(landingUrls, clickIds, clickIds, (url, first, second) => {
        expect(withClickId(withClickId(url, first), second)).toBe(withClickId(url, second));
      }),
    );
  });

  test('examples', () => {
    expect(withClickId('https://a.com', 'ID')).toBe('https://a.com?svc_click_id=ID');
    expect(withClickId('https://a.com/?', 'ID')).toBe('https://a.com/?svc_click_id=ID');
    expect(withClickId('https://a.com/p?x=1&svc_click_id=old&y=%2F#frag?z=1', 'ID')).toBe('https://a.com/p?x=1&y=%2F&svc_click_id=ID#frag?z=1');
    expect(withClickId('https://a.com/p?svc%5Fclick%5Fid=old&a=1&', 'ID')).toBe('https://a.com/p?a=1&&svc_click_id=ID');
    expect(withClickId('https://a.com/#', 'ID')).toBe('https://a.com/?svc_click_id=ID#');
  });
});

describe('rawQuery', () => {
  test('keeps values raw, decodes names, first occurrence wins', () => {
    const query = rawQuery('http://t.example.com/c/s?url=https%253A%252F%252Fa.com&u=x&url=second&key+word=a+b&flag');
    expect(query.get('url')).toBe('https%253A%252F%252Fa.com');
    expect(query.get('key word')).toBe('a+b');
    expect(query.get('flag')).toBe('');
    expect(rawQuery('http://t.example.com/c/s').size).toBe(0);
  });

  test('the query ends at a fragment; empty pieces are skipped', () => {
    const query = rawQuery('http://t.example.com/c/s?&a=1&&b=&c#frag&d=4');
    expect([...query]).toEqual([
      ['a', '1'],
      ['b', ''],
      ['c', ''],
    ]);
    expect(rawQuery('http://t.example.com/c/s?#x=1').size).toBe(0);
  });

  test('property: the same pairs as splitting the query on & and each piece at its first =', () => {
    // The reference model: the obvious reading of a query string, written for clarity, not speed.
    const model = (url: string) => {
      const pairs = new Map<string, string>();
      const start = url.indexOf('?');
      if (start < 0) return pairs;
      const hashAt = url.indexOf('#', start);
      for (const piece of url.slice(start + 1, hashAt < 0 ? undefined : hashAt).split('&')) {
        if (piece === '') continue;
        const eq = piece.indexOf('=');
        let name = eq < 0 ? piece : piece.slice(0, eq);
        try {
          name = decodeURIComponent(name.replaceAll('+', ' '));
        } catch {
          name = name.replaceAll('+', ' ');
        }
        if (!pairs.has(name)) pairs.set(name, eq < 0 ? '' : piece.slice(eq + 1));
      }
      return pairs;
    };
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '=', '&', '#', '?', '%', '2', '0', '+', 'x'), maxLength: 40 });
    fc.assert(
      fc.property(text, text, (path, query) => {
        const url = `http://t.example.com/${path}?${query}`;
        expect([...rawQuery(url)]).toEqual([...model(url)]);
      }),
      { numRuns: 5000 },
    );
  });
});
