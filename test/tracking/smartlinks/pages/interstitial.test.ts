import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { interstitialPage, intentUrl } from '../../../../src/tracking/smartlinks/pages/interstitial';
import { anchorHref, expectSafePage, readPage } from './page-reader';

const ID = '01JCLICK00000000000000000A';
const FALLBACK = 'https://shop.example.com/p?a=1&b=2';
const ENCODED_FALLBACK = 'https%3A%2F%2Fshop.example.com%2Fp%3Fa%3D1%26b%3D2';
const PLAY = `https://play.google.com/store/apps/details?id=com.example.app&referrer=svc_click_id%3D${ID}`;

describe('intentUrl', () => {
  test('a custom scheme: its host, path and query, the scheme and the fallback as extras; the fragment dropped', () => {
    expect(intentUrl(`myapp://product/1?x=1&svc_click_id=${ID}#reviews`, FALLBACK)).toBe(
      `intent://product/1?x=1&svc_click_id=${ID}#Intent;scheme=myapp;S.browser_fallback_url=${ENCODED_FALLBACK};end`,
    );
  });

  test('a known package is named; a malformed one is left out; the scheme is lower-cased', () => {
    expect(intentUrl('MyApp://open', FALLBACK, 'com.example.app')).toBe(`intent://open#Intent;scheme=myapp;package=com.example.app;S.browser_fallback_url=${ENCODED_FALLBACK};end`);
    for (const bad of ['evil;end', 'noDots', 'com.example.app;S.x=1', '1com.example']) {
      expect(intentUrl('myapp://open', FALLBACK, bad)).toBe(`intent://open#Intent;scheme=myapp;S.browser_fallback_url=${ENCODED_FALLBACK};end`);
    }
  });

  test('a Play Store page becomes market://details in the Play Store app, referrer kept', () => {
    expect(intentUrl(PLAY, FALLBACK)).toBe(
      `intent://details?id=com.example.app&referrer=svc_click_id%3D${ID}#Intent;scheme=market;package=com.android.vending;S.browser_fallback_url=${ENCODED_FALLBACK};end`,
    );
    expect(intentUrl('https://play.google.com/store/apps/details?id=x#top', FALLBACK, 'com.other')).toStartWith('intent://details?id=x#Intent;scheme=market;package=com.android.vending;');
  });

  test('an https link (App Link) and a scheme:path deep link', () => {
    expect(intentUrl('https://links.shop.example/app/p?x=1', FALLBACK)).toBe(`intent://links.shop.example/app/p?x=1#Intent;scheme=https;S.browser_fallback_url=${ENCODED_FALLBACK};end`);
    expect(intentUrl('myapp:open?x=1', FALLBACK)).toBe(`intent:open?x=1#Intent;scheme=myapp;S.browser_fallback_url=${ENCODED_FALLBACK};end`);
  });

  test('refused: a fallback that is not http(s), a target that runs script or has no scheme', () => {
    for (const fallback of ['myapp://x', 'javascript:alert(1)', '/relative']) expect(() => intentUrl('myapp://open', fallback)).toThrow(TypeError);
    for (const target of ['javascript:alert(1)', 'data:text/html,x', '//evil.example/x', 'no-scheme']) expect(() => intentUrl(target, FALLBACK)).toThrow(TypeError);
  });

  test('property: the intent names the target scheme, carries its data unchanged, and the fallback decodes back', () => {
    const scheme = fc.stringMatching(/^[a-z][a-z0-9+.-]{0,8}$/).filter((s) => !['javascript', 'vbscript', 'data', 'file', 'blob', 'about'].includes(s));
    const data = fc.stringMatching(/^(\/\/)?[A-Za-z0-9/?&=%._~;:-]{0,30}$/);
    const fallback = fc.webUrl({ withQueryParameters: true, withFragments: true });
    fc.assert(
      fc.property(scheme, data, fc.stringMatching(/^(#[A-Za-z0-9]*)?$/), fallback, (s, d, fragment, fb) => {
        const target = `${s}:${d}${fragment}`;
        fc.pre(!target.startsWith('http') || !target.includes('play.google.com'));
        const intent = intentUrl(target, fb);
        const at = intent.indexOf('#Intent;');
        expect(intent.indexOf('#Intent;', at + 1)).toBe(-1);
        expect(intent.slice(0, at)).toBe(`intent:${d}`);
        expect(intent.endsWith(';end')).toBe(true);
        const extras = Object.fromEntries(intent.slice(at + 8, -4).split(';').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
        expect(extras.scheme).toBe(s);
        expect(decodeURIComponent(extras['S.browser_fallback_url']!)).toBe(fb);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('interstitialPage', () => {
  const target = `myapp://product/1?svc_click_id=${ID}`;

  test('Android: the button and the script use the intent; the fallback is a plain link', async () => {
    const response = interstitialPage({ target, fallback: FALLBACK, os: 'android', androidPackage: 'com.example.app' });
    const page = await readPage(response);
    expectSafePage(response, page);
    expect(anchorHref(page, 'open')).toBe(intentUrl(target, FALLBACK, 'com.example.app'));
    expect(anchorHref(page, 'fallback')).toBe(FALLBACK);
    expect(page.scripts).toHaveLength(1);
    expect(page.scripts[0]).toContain("getElementById('open')");
    expect(page.scripts[0]).toContain('fallback.href');
    expect(page.text).toContain('Open the app');
  });

  test('Android and a Play Store target: the market intent', async () => {
    const page = await readPage(interstitialPage({ target: PLAY, fallback: FALLBACK, os: 'android' }));
    expect(anchorHref(page, 'open')).toStartWith(`intent://details?id=com.example.app&referrer=svc_click_id%3D${ID}#Intent;scheme=market;package=com.android.vending;`);
  });

  test('iOS: a custom scheme as is; an App Store page by itms-apps; a universal link with the open-in-browser note', async () => {
    const custom = await readPage(interstitialPage({ target, fallback: FALLBACK, os: 'ios' }));
    expect(anchorHref(custom, 'open')).toBe(target);
    expect(custom.text).not.toContain('Open in browser');
    const store = await readPage(interstitialPage({ target: 'https://apps.apple.com/us/app/id123?pt=1', fallback: FALLBACK, os: 'ios' }));
    expect(anchorHref(store, 'open')).toBe('itms-apps://apps.apple.com/us/app/id123?pt=1');
    const universal = await readPage(interstitialPage({ target: `https://links.shop.example/p?svc_click_id=${ID}`, fallback: FALLBACK, os: 'ios' }));
    expect(anchorHref(universal, 'open')).toBe(`https://links.shop.example/p?svc_click_id=${ID}`);
    expect(universal.text).toContain('Open in browser');
  });

  test('another or unknown system: the target as is', async () => {
    for (const os of ['desktop', null] as const) {
      const response = interstitialPage({ target, fallback: FALLBACK, os });
      const page = await readPage(response);
      expectSafePage(response, page);
      expect(anchorHref(page, 'open')).toBe(target);
    }
  });

  test('the same script on every page, so its hash is fixed', async () => {
    const a = await readPage(interstitialPage({ target, fallback: FALLBACK, os: 'android' }));
    const b = await readPage(interstitialPage({ target: PLAY, fallback: 'https://x.example/', os: 'ios' }));
    expect(a.scripts).toEqual(b.scripts);
    expect(a.csp['script-src']).toEqual(b.csp['script-src']);
  });

  test('security: markup in a target or fallback stays inside its attribute', async () => {
    const evil = `myapp://x?q="><script>alert(1)</script><a href='javascript:alert(2)'>`;
    const evilFallback = `https://shop.example/?q="><img src=x onerror=alert(1)>`;
    for (const os of ['android', 'ios', null] as const) {
      const response = interstitialPage({ target: evil, fallback: evilFallback, os });
      const page = await readPage(response);
      expectSafePage(response, page);
      expect(page.elements.filter((e) => e.tag === 'a')).toHaveLength(2);
      expect(page.scripts).toHaveLength(1);
      expect(anchorHref(page, 'fallback')).toBe(evilFallback);
      if (os !== 'android') expect(anchorHref(page, 'open')).toBe(evil);
    }
  });

  test('security: a target or fallback that would run script is refused, and the fallback is always http(s)', () => {
    expect(() => interstitialPage({ target: 'javascript:alert(1)', fallback: FALLBACK, os: 'ios' })).toThrow(TypeError);
    expect(() => interstitialPage({ target: 'JAVASCRIPT:alert(1)', fallback: FALLBACK, os: null })).toThrow(TypeError);
    expect(() => interstitialPage({ target, fallback: 'javascript:alert(1)', os: 'ios' })).toThrow(TypeError);
    expect(() => interstitialPage({ target, fallback: 'javascript:alert(1)', os: 'android' })).toThrow(TypeError);
    for (const os of ['ios', 'desktop', null] as const) expect(() => interstitialPage({ target, fallback: 'myapp://elsewhere', os })).toThrow(TypeError);
  });
});
