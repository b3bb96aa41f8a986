import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { deepLinkPathFromUrl, parseDeepLink } from '../src/deep-link';
import { utf8Bytes } from '../src/transport';
import { isAbsoluteUrl, urlParam } from '../src/url-params';

const ID = '01CLICK00000000000000000AB';
const idChars = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'.split(''));
const clickId = fc.array(idChars, { minLength: 4, maxLength: 64 }).map((chars) => chars.join(''));
const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/);
/** In-app paths as links carry them: `/product/42`, with a query of their own at times. */
const path = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.option(fc.tuple(segment, fc.string({ maxLength: 8 })), { nil: undefined }))
  .map(([parts, query]) => `/${parts.join('/')}${query ? `?${query[0]}=${query[1]}` : ''}`);
const otherParams = fc.array(fc.tuple(segment.filter((k) => k !== 'svc_click_id' && k !== 'deep_link_path'), fc.string({ maxLength: 10 })), { maxLength: 4 });
const base = fc.constantFrom('myapp://open', 'myapp://product/7', 'https://app.example/open', 'https://app.example/', 'exp+app://x/y');

function query(params: [string, string][]): string {
  return params.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
}

describe('deep links', () => {
  test('svc_click_id and deep_link_path from the query or a query in the fragment', () => {
    expect(parseDeepLink(`myapp://open?svc_click_id=${ID}&deep_link_path=%2Fproduct%2F42`)).toEqual({ url: `myapp://open?svc_click_id=${ID}&deep_link_path=%2Fproduct%2F42`, clickId: ID, deepLinkPath: '/product/42' });
    expect(parseDeepLink(`https://app.example/#/route?deep_link_path=/a/b&svc_click_id=${ID}`)).toMatchObject({ clickId: ID, deepLinkPath: '/a/b' });
    expect(parseDeepLink('myapp://open')).toMatchObject({ clickId: null, deepLinkPath: null });
    expect(parseDeepLink('not a url?svc_click_id=' + ID)).toMatchObject({ clickId: null, deepLinkPath: null });
  });

  test('a path encoded twice is decoded twice; a URL or a protocol-relative value is no path', () => {
    expect(deepLinkPathFromUrl('myapp://x?deep_link_path=%252Fproduct%252F42%253Fcolor%253Dred')).toBe('/product/42?color=red');
    expect(deepLinkPathFromUrl('myapp://x?deep_link_path=https%3A%2F%2Fevil.example%2F')).toBeNull();
    expect(deepLinkPathFromUrl('myapp://x?deep_link_path=%2F%2Fevil.example')).toBeNull();
    expect(deepLinkPathFromUrl('myapp://x?deep_link_path=')).toBeNull();
    expect(deepLinkPathFromUrl(`myapp://x?deep_link_path=/${'a'.repeat(600)}`)).toBeNull();
    expect(deepLinkPathFromUrl('myapp://x?deep_link_path=%2Fbad%E0%A4%A')).toBe('/bad%E0%A4%A');
  });

  test('any link, with or without the parameters, encoded once or twice, reads back what was put in (property)', () => {
    fc.assert(
      fc.property(base, otherParams, fc.option(clickId, { nil: undefined }), fc.option(path, { nil: undefined }), fc.boolean(), fc.boolean(), (url, others, id, deepPath, twice, inFragment) => {
        const params: [string, string][] = [...others];
        if (id !== undefined) params.push(['svc_click_id', id]);
        if (deepPath !== undefined) params.push(['deep_link_path', twice ? encodeURIComponent(deepPath) : deepPath]);
        const link = params.length === 0 ? url : inFragment ? `${url}#/screen?${query(params)}` : `${url}?${query(params)}`;
        const parsed = parseDeepLink(link);
        return parsed.clickId === (id ?? null) && parsed.deepLinkPath === (deepPath ?? null);
      }),
    );
  });
});

describe('URL parameters without the URL class', () => {
  test('the same values as URLSearchParams for any web URL with a query (property)', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string({ minLength: 1, maxLength: 6 }), fc.string({ maxLength: 12 }), (href, key, value) => {
        const url = new URL(href);
        url.searchParams.append(key, value);
        return urlParam(url.toString(), key) === url.searchParams.get(key);
      }),
    );
  });

  test('only an absolute URL has parameters', () => {
    expect(isAbsoluteUrl('myapp://x')).toBe(true);
    expect(isAbsoluteUrl('/relative?svc_click_id=x')).toBe(false);
    expect(urlParam('/relative?a=1', 'a')).toBeNull();
    expect(urlParam('https://x.example/?a=1+2&a=3', 'a')).toBe('1 2');
    expect(urlParam('https://x.example/?flag', 'flag')).toBe('');
  });
});

test('UTF-8 sizes by hand match TextEncoder, lone surrogates included (property)', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 3 }), (text, surrogates) => {
    const mixed = text + surrogates + text;
    return utf8Bytes(mixed) === new TextEncoder().encode(mixed).length;
  }));
});
