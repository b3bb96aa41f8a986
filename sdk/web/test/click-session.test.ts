import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { CLICK_ID_LIFETIME_MS, clickIdFromUrl, keptClick, rememberClick } from '../src/click-id';
import { SESSION_TIMEOUT_MS } from '../src/session';
import { createStore } from '../src/storage';
import { FakeBrowser, FakeStorage } from './support/fakes';

const ID = '01CLICK00000000000000000AB';
const DAY = 24 * 60 * 60 * 1000;

describe('the landing click id', () => {
  test('read from svc_click_id in the query, or in a query inside the fragment; invalid values are not ours', () => {
    expect(clickIdFromUrl(`https://shop.example/p?a=1&svc_click_id=${ID}#top`)).toBe(ID);
    expect(clickIdFromUrl(`https://shop.example/#/product?svc_click_id=${ID}`)).toBe(ID);
    expect(clickIdFromUrl('https://shop.example/p')).toBeNull();
    expect(clickIdFromUrl('https://shop.example/p?svc_click_id=abc')).toBeNull();
    expect(clickIdFromUrl('https://shop.example/p?svc_click_id=has%20space')).toBeNull();
    expect(clickIdFromUrl(`https://shop.example/p?svc_click_id=${'a'.repeat(65)}`)).toBeNull();
    expect(clickIdFromUrl('not a url')).toBeNull();
  });

  test('any valid id appended by the redirect is read back exactly (property)', () => {
    const idChars = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'.split(''));
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.array(idChars, { minLength: 4, maxLength: 64 }), (landing, chars) => {
        const id = chars.join('');
        const url = new URL(landing);
        url.searchParams.delete('svc_click_id');
        url.searchParams.append('svc_click_id', id);
        return clickIdFromUrl(url.toString()) === id;
      }),
    );
  });

  test('kept 7 days from the landing, with the gclid; a reload does not extend it; a newer click replaces it', () => {
    const store = createStore(new FakeStorage(), 'c:');
    const t0 = Date.UTC(2026, 8, 2);
    expect(CLICK_ID_LIFETIME_MS).toBe(7 * DAY);
    rememberClick(store, `https://shop.example/?gclid=Cj0KCQ&svc_click_id=${ID}`, t0);
    expect(rememberClick(store, `https://shop.example/?svc_click_id=${ID}`, t0 + 3 * DAY)).toEqual({ id: ID, gclid: 'Cj0KCQ', at: t0 });
    expect(keptClick(store, t0 + 7 * DAY - 1)?.id).toBe(ID);
    expect(keptClick(store, t0 + 7 * DAY)).toBeUndefined();
    expect(keptClick(store, t0)).toBeUndefined();
    rememberClick(store, `https://shop.example/?svc_click_id=${ID}`, t0);
    rememberClick(store, 'https://shop.example/?svc_click_id=01CLICK00000000000000000ZZ', t0 + DAY);
    expect(keptClick(store, t0 + DAY)).toEqual({ id: '01CLICK00000000000000000ZZ', at: t0 + DAY });
    expect(rememberClick(store, 'https://shop.example/plain', t0 + DAY)).toBeUndefined();
    expect(keptClick(store, t0 + DAY)?.id).toBe('01CLICK00000000000000000ZZ');
  });

  test('an install 6 days after the landing carries the click; one after 8 days does not', async () => {
    for (const [days, expected] of [[6, ID], [8, null]] as const) {
      const browser = new FakeBrowser();
      await browser.load({ requireConsent: true }, `https://shop.example/?svc_click_id=${ID}`);
      await browser.clock.advance(days * DAY);
      const later = await browser.load({ requireConsent: true }, 'https://shop.example/account');
      later.setConsent(true);
      await browser.clock.advance(0);
      expect(browser.server.to('install')[0]!.body.click_id).toBe(expected);
    }
  });
});

describe('sessions: session_start after 30 minutes of inactivity', () => {
  test('one at the first page view; none while active; one after 30 idle minutes', async () => {
    const browser = new FakeBrowser();
    expect(SESSION_TIMEOUT_MS).toBe(30 * 60_000);
    const sdk = await browser.load({}, 'https://shop.example/');
    await browser.clock.advance(29 * 60_000);
    sdk.logEvent('a');
    await browser.clock.advance(29 * 60_000);
    await browser.load({}, 'https://shop.example/second');
    await browser.clock.advance(30 * 60_000);
    const third = await browser.load({}, 'https://shop.example/third');
    third.logEvent('b');
    await third.flush();
    expect(browser.server.delivered()).toEqual(['session_start', 'a', 'session_start', 'b']);
  });

  test('an event logged after 30 idle minutes is preceded by a session_start; the page shown again counts as activity', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({}, 'https://shop.example/');
    await browser.clock.advance(20 * 60_000);
    browser.page.show();
    await browser.clock.advance(20 * 60_000);
    sdk.logEvent('a');
    await browser.clock.advance(31 * 60_000);
    sdk.logEvent('b');
    await sdk.flush();
    expect(browser.server.delivered()).toEqual(['session_start', 'a', 'session_start', 'b']);
  });
});
