import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { parseLinkUpdate } from '../../src/links/links.service';
import { parseDeepLinkPath } from '../../src/links/link-fields';
import { parseHttpUrl } from '../../src/shared/net/web-url';
import { parseDomain } from '../../src/shared/net/hostname';

const ok = <T>(parsed: { value: T } | { error: string }) => ('value' in parsed ? parsed.value : undefined);
const isError = (parsed: object) => 'error' in parsed;

describe('parseHttpUrl', () => {
  test('accepts absolute http(s) URLs and keeps them as given', () => {
    for (const url of ['https://shop.example.com/landing?x=1#top', 'http://example.com', 'HTTPS://Example.COM/a', 'https://xn--bcher-kva.example/p', 'https://example.com:8443/ü']) {
      expect(ok(parseHttpUrl(url))).toBe(url);
    }
  });
  test('refuses other schemes, relative, protocol-relative, malformed and deceptive URLs', () => {
    for (const url of [
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'ftp://example.com/file',
      '/relative/path',
      'relative',
      '//example.com/path',
      'http:example.com',
      'https:/example.com',
      'https://',
      'https:// example.com',
      'https://exa mple.com',
      ' https://example.com',
      'https://example.com\n',
      'https://evil.example\\@shop.example',
      'https://user:pass@example.com/',
      'https://[::1',
      '',
      `https://example.com/${'a'.repeat(2048)}`,
    ]) {
      expect(isError(parseHttpUrl(url))).toBe(true);
    }
  });
  test('property: anything accepted parses as http(s) with the same host the raw text names', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string(), fc.constantFrom('javascript:', 'data:', '//', 'http:')), (raw) => {
        const parsed = parseHttpUrl(raw);
        if ('error' in parsed) return;
        const url = new URL(parsed.value);
        expect(['http:', 'https:']).toContain(url.protocol);
        expect(url.hostname.length).toBeGreaterThan(0);
        expect(raw.toLowerCase().startsWith(`${url.protocol}//`)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
  test('property: every generated web URL without credentials is accepted', () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true }), (raw) => {
        const url = new URL(raw);
        if (url.username || url.password) return;
        expect(ok(parseHttpUrl(raw))).toBe(raw);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseDomain', () => {
  test('accepts hostnames with an optional port and lower-cases them', () => {
    expect(ok(parseDomain('Go.Example.COM'))).toBe('go.example.com');
    expect(ok(parseDomain('go.example.com:8443'))).toBe('go.example.com:8443');
    expect(ok(parseDomain('xn--bcher-kva.example'))).toBe('xn--bcher-kva.example');
    expect(ok(parseDomain('a-b.c-d.example'))).toBe('a-b.c-d.example');
  });
  test('refuses schemes, paths, credentials, IP literals, bad labels and ports', () => {
    for (const raw of [
      'https://go.example.com',
      'go.example.com/path',
      'go.example.com?x',
      'user@go.example.com',
      'localhost',
      '127.0.0.1',
      '[::1]',
      '-go.example.com',
      'go-.example.com',
      'go..example.com',
      'go.example.com.',
      '.example.com',
      'go.example.com:0',
      'go.example.com:65536',
      'go.example.com:080',
      'go.example.com:',
      'bücher.example',
      'go example.com',
      `${'a'.repeat(64)}.example.com`,
      '',
    ]) {
      expect(isError(parseDomain(raw))).toBe(true);
    }
  });
  test('property: accepted domains are lower-case, idempotent and read back as the URL host', () => {
    fc.assert(
      fc.property(fc.oneof(fc.domain(), fc.string(), fc.tuple(fc.domain(), fc.integer({ min: 0, max: 70000 })).map(([d, p]) => `${d}:${p}`)), (raw) => {
        const parsed = parseDomain(raw);
        if ('error' in parsed) return;
        expect(parsed.value).toBe(parsed.value.toLowerCase());
        expect(ok(parseDomain(parsed.value))).toBe(parsed.value);
        expect(new URL(`https://${parsed.value}/`).host).toBe(parsed.value.replace(/:443$/, ''));
      }),
      { numRuns: 2000 },
    );
  });
  test('property: every generated domain name with a letter-led TLD is accepted', () => {
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        const tld = domain.split('.').at(-1)!;
        if (!/^[a-z]/.test(tld) || !domain.includes('.')) return;
        expect(ok(parseDomain(domain))).toBe(domain);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseDeepLinkPath', () => {
  test('accepts app paths with or without a leading slash, query and fragment', () => {
    for (const raw of ['/product/42', 'product/42', 'product/42?ref=mail&x=%20y', '/a/b#section', '/']) expect(ok(parseDeepLinkPath(raw))).toBe(raw);
  });
  test('refuses URLs, schemes, protocol-relative paths, blanks and overlong paths', () => {
    for (const raw of ['https://example.com/x', 'myapp://product/42', 'javascript:alert(1)', '//evil.example/x', 'product 42', 'product/\n', 'a%zz', 'a\\b', 'ürün/1', '', `/${'a'.repeat(512)}`]) {
      expect(isError(parseDeepLinkPath(raw))).toBe(true);
    }
  });
  test('property: an accepted path never resolves to another origin', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webPath(), fc.webUrl()), (raw) => {
        const parsed = parseDeepLinkPath(raw);
        if ('error' in parsed) return;
        expect(new URL(parsed.value, 'https://app.example/').origin).toBe('https://app.example');
        expect(parsed.value.length).toBeLessThanOrEqual(512);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseLinkUpdate', () => {
  test('the tracking host, in any case and even when it is no public hostname, is stored as the tracking host', () => {
    expect(parseLinkUpdate({ domain: 'LOCALHOST:3000' }, 'localhost:3000')).toEqual({ domain: '' });
    expect(parseLinkUpdate({ domain: 'Track.Example.com' }, 'track.example.com')).toEqual({ domain: '' });
    expect(parseLinkUpdate({ domain: null }, 'track.example.com')).toEqual({ domain: '' });
    expect(parseLinkUpdate({ domain: 'Go.Example.com' }, 'track.example.com')).toEqual({ domain: 'go.example.com' });
    expect(() => parseLinkUpdate({ domain: 'localhost:3001' }, 'localhost:3000')).toThrow();
  });
  test('only present fields appear in the update; null clears', () => {
    expect(parseLinkUpdate({}, 'h.example')).toEqual({});
    expect(parseLinkUpdate({ click_cap: null, rules: null, status: 'paused' }, 'h.example')).toEqual({ click_cap: null, rules: null, status: 'paused' });
    expect(parseLinkUpdate({ expires_at: '2030-01-01T00:00:00Z' }, 'h.example')).toEqual({ expires_at: new Date('2030-01-01T00:00:00Z') });
    expect(parseLinkUpdate({ preview: null, pass_params: false }, 'h.example')).toEqual({ preview: null, pass_params: false });
  });
  test('rules are stored normalised, a bare array as a version 1 rule set', () => {
    const update = parseLinkUpdate({ rules: [{ if: { country: 'de', os: 'iOS' }, then: { url: 'https://example.de' } }] }, 'h.example');
    expect(update).toEqual({ rules: { version: 1, rules: [{ if: { country: ['DE'], os: ['ios'] }, then: { url: 'https://example.de' } }] } });
  });
  test('the errors of every field come in one 400, each under its exact path', () => {
    let thrown: unknown;
    try {
      parseLinkUpdate({ rules: [{ if: { country: 'XX' }, then: {} }], preview: { image: 'http://img.example/a.png' }, destination: 'ftp://x' }, 'h.example');
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { body: unknown }).body).toEqual({
      error: {
        formErrors: [],
        fieldErrors: {
          destination: ['must be an absolute http(s) URL'],
          'rules.rules.0.if.country': ['"XX" is not an ISO 3166-1 alpha-2 country code such as US or DE'],
          'rules.rules.0.then': ['must name one action: url, store, deep_link, variants or block'],
          'preview.image': ['must be an absolute https URL of at most 2048 characters'],
        },
      },
    });
  });
});
