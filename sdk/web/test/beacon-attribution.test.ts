import { describe, expect, test } from 'bun:test';
import { beaconBody } from '../src/beacon';
import { fingerprintHash } from '../src/fingerprint';
import { FakeBrowser, SIGNALS } from './support/fakes';

const LANDING = 'https://shop.example/landing?svc_click_id=01CLICK00000000000000000AB';

describe('the landing beacon', () => {
  test('sent once per page view when it is hidden, with dwell, scroll and the browser signals', async () => {
    const browser = new FakeBrowser();
    await browser.load({}, LANDING);
    await browser.clock.advance(4_200);
    browser.page.hide();
    browser.page.hide();
    await browser.clock.advance(0);
    expect(browser.beacons).toEqual([
      {
        url: 'https://api.example/api/protect/beacon',
        body: {
          click_id: '01CLICK00000000000000000AB',
          fingerprint: '0123456789abcdef',
          screen: '1280x720',
          timezone: 'Europe/Berlin',
          languages: 'de-DE,de,en',
          webdriver: false,
          touch: false,
          dwell_ms: 4200,
          scroll: 40,
        },
      },
    ]);
    await browser.load({}, LANDING);
    browser.page.hide();
    expect(browser.beacons).toHaveLength(2);
  });

  test('none for a page view without a click id in its URL, nor while consent is pending', async () => {
    const browser = new FakeBrowser();
    await browser.load({}, 'https://shop.example/other');
    browser.page.hide();
    const pending = new FakeBrowser();
    const sdk = await pending.load({ requireConsent: true }, LANDING);
    pending.page.hide();
    expect([browser.beacons, pending.beacons]).toEqual([[], []]);
    sdk.setConsent(true);
    pending.page.hide();
    expect(pending.beacons).toHaveLength(1);
  });

  test('what the server would refuse is left out: no scroll when the page cannot scroll, odd screens, long strings', () => {
    const body = beaconBody('01CLICK', { ...SIGNALS, scrollDepth: () => undefined, screen: () => 'NaNxNaN', languages: () => 'x'.repeat(300) }, 1000, 500);
    expect(body.scroll).toBeUndefined();
    expect(body.screen).toBeUndefined();
    expect(body.languages).toHaveLength(256);
    expect(body.dwell_ms).toBe(0);
  });

  test('the fingerprint hash is stable, 16 hex characters, and differs with any trait', () => {
    const traits = ['Mozilla/5.0', 'de-DE', 'Linux', 8, undefined, '1280x720', 24, 1, 'Europe/Berlin', 0];
    expect(fingerprintHash(traits)).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprintHash(traits)).toBe(fingerprintHash([...traits]));
    const seen = new Set([fingerprintHash(traits)]);
    traits.forEach((_, i) => seen.add(fingerprintHash(traits.map((t, j) => (i === j ? `${t}!` : t)))));
    expect(seen.size).toBe(traits.length + 1);
  });
});

describe('the attribution callback fires on every open', () => {
  test('first launch: the install answer; later page views: the stored answer; a new click: the re-engagement open', async () => {
    const browser = new FakeBrowser();
    await browser.load({}, LANDING);
    await browser.clock.advance(0);
    await browser.load({}, 'https://shop.example/next');
    await browser.clock.advance(0);
    // A reload of the landing URL is not a new click.
    await browser.load({}, LANDING);
    await browser.clock.advance(0);
    await browser.load({}, 'https://shop.example/back?svc_click_id=01CLICK00000000000000000ZZ');
    await browser.clock.advance(0);
    expect(browser.attributions.map((a) => (a.kind === 'install' ? `install:${a.firstLaunch}:${a.install.attribution.method}` : `open:${a.open.attributed}`))).toEqual([
      'install:true:CLICK_ID',
      'install:false:CLICK_ID',
      'install:false:CLICK_ID',
      'open:true',
    ]);
    expect(browser.server.to('install')).toHaveLength(1);
    expect(browser.server.to('open')[0]!.body).toMatchObject({ click_id: '01CLICK00000000000000000ZZ', url: 'https://shop.example/back?svc_click_id=01CLICK00000000000000000ZZ' });
  });

  test('open(url) reports a deep link of a single-page app and answers the server\'s response; a callback that throws changes nothing', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({ onAttribution: () => { throw new Error('page bug'); } }, 'https://shop.example/');
    const answer = await sdk.open('https://shop.example/#/promo?svc_click_id=01CLICK00000000000000000CD');
    expect(answer).toEqual({ reengagement_id: '01REENGAGE', attributed: true, campaign_id: null, deep_link_path: null });
    expect(browser.warnings).toContain('svc: onAttribution threw');
    expect(JSON.parse(browser.storage.getItem('svc_sdk:sk_test:click')!).id).toBe('01CLICK00000000000000000CD');
  });

  test('a failed open rejects and fires no callback', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({}, 'https://shop.example/');
    await browser.clock.advance(0);
    browser.server.answer('open', { status: 404, body: { error: 'install not found' } });
    await expect(sdk.open()).rejects.toThrow('open failed (status 404)');
    expect(browser.attributions.filter((a) => a.kind === 'open')).toEqual([]);
  });
});

describe('configuration and storage', () => {
  test('configure refuses a missing key or a base URL that is not absolute http(s)', async () => {
    const browser = new FakeBrowser();
    await expect(browser.load({ sdkKey: '' })).rejects.toThrow('sdkKey');
    await expect(browser.load({ baseUrl: '/relative' })).rejects.toThrow('baseUrl');
    await expect(browser.load({ baseUrl: 'ftp://api.example' })).rejects.toThrow('baseUrl');
  });

  test('the device id is random, kept across page views, and the same on every call', async () => {
    const browser = new FakeBrowser();
    const sdk = await browser.load({}, 'https://shop.example/');
    await browser.clock.advance(0);
    await browser.load({}, 'https://shop.example/two');
    sdk.logEvent('x');
    await sdk.flush();
    const devices = new Set(browser.server.requests.map((r) => r.body.device_id));
    expect([...devices]).toEqual(['device-1-0000']);
  });

  test('with storage that refuses writes the SDK still works for the page view', async () => {
    const browser = new FakeBrowser();
    browser.storage.failWrites = true;
    const sdk = await browser.load({}, LANDING);
    sdk.logEvent('a');
    await sdk.flush();
    expect(browser.server.delivered()).toEqual(['session_start', 'a']);
    expect(browser.server.to('install')[0]!.body.click_id).toBe('01CLICK00000000000000000AB');
  });
});
