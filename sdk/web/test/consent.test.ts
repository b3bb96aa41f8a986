import { describe, expect, test } from 'bun:test';
import { consentChange, initialConsent } from '../src/consent';
import { FakeBrowser } from './support/fakes';

const LANDING = 'https://shop.example/landing?svc_click_id=01CLICK00000000000000000AB';

describe('consent status at configure', () => {
  test('a stored decision wins; without one requireConsent starts pending and its absence granted', () => {
    expect(initialConsent(true, undefined)).toBe('pending');
    expect(initialConsent(false, undefined)).toBe('granted');
    expect(initialConsent(true, 'granted')).toBe('granted');
    expect(initialConsent(false, 'denied')).toBe('denied');
    expect(initialConsent(true, 'maybe')).toBe('pending');
  });

  test('every decision replaces the previous one; only a change starts or forgets', () => {
    expect(consentChange('pending', 'granted')).toEqual({ start: true, forget: false });
    expect(consentChange('pending', 'denied')).toEqual({ start: false, forget: true });
    expect(consentChange('granted', 'denied')).toEqual({ start: false, forget: true });
    expect(consentChange('denied', 'granted')).toEqual({ start: true, forget: false });
    expect(consentChange('granted', 'granted')).toEqual({ start: false, forget: false });
    expect(consentChange('denied', 'denied')).toEqual({ start: false, forget: false });
  });
});

describe('pending (requireConsent)', () => {
  test('nothing is sent: not the install, not events at 20, not on the timer, a flush or the page hiding; the click id is kept', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({ requireConsent: true }, LANDING);
    expect(sdk.consentStatus()).toBe('pending');
    for (let n = 0; n < 25; n++) sdk.logEvent(`e${n}`);
    await sdk.flush();
    browser.page.hide();
    await browser.clock.advance(60_000);
    expect(browser.server.requests).toEqual([]);
    expect(browser.beacons).toEqual([]);
    expect(sdk.queueStats()).toEqual({ queued: 26, dropped: 0 });
    expect(JSON.parse(browser.storage.getItem('svc_sdk:sk_test:click')!).id).toBe('01CLICK00000000000000000AB');
  });

  test('setConsent(true): persisted, the install goes with the kept click id, then the queue (session_start first)', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({ requireConsent: true }, LANDING);
    sdk.logEvent('viewed');
    await browser.clock.advance(5 * 60_000);
    sdk.setConsent(true);
    await browser.clock.advance(0);
    expect(sdk.consentStatus()).toBe('granted');
    expect(browser.server.requests.map((r) => r.path)).toEqual(['install', 'events']);
    const install = browser.server.to('install')[0]!.body;
    expect(install).toMatchObject({ platform: 'web', click_id: '01CLICK00000000000000000AB', sdk_version: '0.1.0', locale: 'de-DE', timezone: 'Europe/Berlin' });
    // installed_at is the first page view, not the moment of consent.
    expect(install.installed_at).toBe(new Date(browser.clock.now() - 5 * 60_000).toISOString());
    expect(browser.server.delivered()).toEqual(['session_start', 'viewed']);
    expect(browser.attributions).toMatchObject([{ kind: 'install', firstLaunch: true, install: { attribution: { method: 'CLICK_ID' } } }]);
    // The decision outlives the page: the next page view starts granted, even with requireConsent.
    const next = await browser.load({ requireConsent: true }, 'https://shop.example/next');
    expect(next.consentStatus()).toBe('granted');
  });

  test('setConsent(false): denied, the queue cleared, the click forgotten, nothing sent, now or later', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({ requireConsent: true }, LANDING);
    for (let n = 0; n < 5; n++) sdk.logEvent(`e${n}`);
    sdk.setConsent(false);
    expect(sdk.consentStatus()).toBe('denied');
    expect(sdk.queueStats().queued).toBe(0);
    expect(browser.storage.getItem('svc_sdk:sk_test:click')).toBeNull();
    sdk.logEvent('after');
    expect(sdk.queueStats().queued).toBe(0);
    await sdk.flush();
    browser.page.hide();
    await browser.clock.advance(60_000);
    const next = await browser.load({ requireConsent: false }, LANDING);
    expect(next.consentStatus()).toBe('denied');
    next.logEvent('later');
    await browser.clock.advance(60_000);
    expect(browser.server.requests).toEqual([]);
    expect(browser.beacons).toEqual([]);
    expect(browser.storage.getItem('svc_sdk:sk_test:click')).toBeNull();
    await expect(next.open()).rejects.toThrow('consent denied');
  });

  test('open() while pending waits for consent, then reports; a denial rejects it', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({ requireConsent: true }, 'https://shop.example/');
    const waiting = sdk.open('https://shop.example/p?svc_click_id=01CLICK00000000000000000CD');
    await browser.clock.advance(1000);
    expect(browser.server.requests).toEqual([]);
    sdk.setConsent(true);
    await expect(waiting).resolves.toMatchObject({ attributed: true });
    expect(browser.server.requests.map((r) => r.path)).toEqual(['install', 'open', 'events']);
    const second = new FakeBrowser();
    const pending = await second.load({ requireConsent: true });
    const refused = pending.open();
    pending.setConsent(false);
    await expect(refused).rejects.toThrow('consent denied');
  });
});

describe('after the first decision', () => {
  test('granted then denied: sending stops mid-retry and what was queued is dropped', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({}, 'https://shop.example/');
    await browser.clock.advance(0);
    expect(browser.server.delivered()).toEqual(['session_start']);
    browser.server.answer('events', 'network', 'network', 'network');
    sdk.logEvent('one');
    void sdk.flush();
    await browser.clock.advance(0);
    expect(browser.server.to('events')).toHaveLength(2);
    sdk.setConsent(false);
    await browser.clock.advance(60_000);
    expect(browser.server.to('events')).toHaveLength(2);
    expect(sdk.queueStats().queued).toBe(0);
  });

  test('denied then granted: the install goes (with this page\'s click), a new session starts, sending resumes', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({ requireConsent: true }, 'https://shop.example/');
    sdk.setConsent(false);
    await browser.clock.advance(60_000);
    const later = await browser.load({ requireConsent: true }, LANDING);
    expect(later.consentStatus()).toBe('denied');
    later.setConsent(true);
    later.logEvent('bought', { value: 9.5, currency: 'eur' });
    await later.flush();
    expect(browser.server.to('install')[0]!.body.click_id).toBe('01CLICK00000000000000000AB');
    expect(browser.server.delivered()).toEqual(['session_start', 'bought']);
    expect(browser.server.to('events')[0]!.body.events[1]).toMatchObject({ name: 'bought', value: 9.5, currency: 'EUR' });
  });

  test('without requireConsent the SDK starts granted and sends at once', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({}, LANDING);
    expect(sdk.consentStatus()).toBe('granted');
    await browser.clock.advance(0);
    expect(browser.server.requests.map((r) => r.path)).toEqual(['install', 'events']);
  });
});
