import { describe, expect, test } from 'bun:test';
import { FLUSH_AT_EVENTS, FLUSH_INTERVAL_MS } from '../src/sdk';
import { FakeBrowser } from './support/fakes';

/** A granted page view whose install is done and first session_start sent. */
async function installed(browser = new FakeBrowser()) {
  const sdk = await browser.load({}, 'https://shop.example/');
  await browser.clock.advance(0);
  expect(browser.server.delivered()).toEqual(['session_start']);
  return { browser, sdk };
}

describe('flush triggers: every 10 s, at 20 events, on background', () => {
  test('the timer sends what is queued every 10 s', async () => {
    const { browser, sdk } = await installed();
    expect(FLUSH_INTERVAL_MS).toBe(10_000);
    sdk.logEvent('a');
    await browser.clock.advance(FLUSH_INTERVAL_MS - 1);
    expect(browser.server.delivered()).toEqual(['session_start']);
    await browser.clock.advance(1);
    expect(browser.server.delivered()).toEqual(['session_start', 'a']);
    sdk.logEvent('b');
    await browser.clock.advance(FLUSH_INTERVAL_MS - 1);
    expect(browser.server.delivered()).toEqual(['session_start', 'a']);
    await browser.clock.advance(1);
    expect(browser.server.delivered()).toEqual(['session_start', 'a', 'b']);
  });

  test('the 20th queued event sends the batch at once', async () => {
    const { browser, sdk } = await installed();
    expect(FLUSH_AT_EVENTS).toBe(20);
    for (let n = 1; n < 20; n++) sdk.logEvent(`e${n}`);
    await browser.clock.advance(0);
    expect(browser.server.to('events')).toHaveLength(1);
    sdk.logEvent('e20');
    await browser.clock.advance(0);
    expect(browser.server.to('events')).toHaveLength(2);
    expect(browser.server.to('events')[1]!.body.events).toHaveLength(20);
  });

  test('the page going to the background flushes with keepalive', async () => {
    const { browser, sdk } = await installed();
    sdk.logEvent('leaving');
    browser.page.hide();
    await browser.clock.advance(0);
    const last = browser.server.to('events').at(-1)!;
    expect(last.body.events.map((e: { name: string }) => e.name)).toEqual(['leaving']);
    expect(last.keepalive).toBe(true);
    expect(last.body).toMatchObject({ device_id: 'device-1-0000', install_id: '01INSTALL0000000000000000A' });
    expect(last.headers).toMatchObject({ 'X-SDK-Key': 'sk_test', 'Content-Type': 'application/json' });
  });

  test('more than 100 queued events go in batches of at most 100', async () => {
    const { browser, sdk } = await installed();
    browser.server.answer('events', 'network', 'network', 'network');
    for (let n = 0; n < 230; n++) sdk.logEvent(`e${n}`);
    await browser.clock.advance(10_000);
    browser.page.online();
    await browser.clock.advance(0);
    const sizes = browser.server.to('events').slice(4).map((r) => r.body.events.length);
    expect(sizes).toEqual([100, 100, 30]);
    expect(browser.server.delivered()).toHaveLength(231);
  });
});

describe('retries', () => {
  test('event batches: 3 attempts with 1 s and 2 s backoff, then kept for the next flush, sent once when it works', async () => {
    const { browser, sdk } = await installed();
    browser.server.answer('events', 'network', { status: 503 }, { status: 500 });
    sdk.logEvent('a');
    sdk.logEvent('b');
    const start = browser.clock.now();
    await Promise.all([sdk.flush(), browser.clock.advance(3000)]);
    const attempts = browser.server.to('events').slice(1);
    expect(attempts.map((r) => r.at - start)).toEqual([0, 1000, 3000]);
    expect(sdk.queueStats().queued).toBe(2);
    await browser.clock.advance(FLUSH_INTERVAL_MS);
    expect(browser.server.delivered()).toEqual(['session_start', 'a', 'b']);
    expect(sdk.queueStats().queued).toBe(0);
    await browser.clock.advance(60_000);
    expect(browser.server.delivered()).toEqual(['session_start', 'a', 'b']);
  });

  test('another 4xx is never retried: the batch is dropped, not replayed', async () => {
    const { browser, sdk } = await installed();
    browser.server.answer('events', { status: 400, body: { error: { formErrors: [], fieldErrors: { events: ['bad'] } } } });
    sdk.logEvent('refused');
    await Promise.all([sdk.flush(), browser.clock.advance(0)]);
    await browser.clock.advance(60_000);
    expect(browser.server.to('events')).toHaveLength(2);
    expect(sdk.queueStats().queued).toBe(0);
    expect(browser.warnings.some((w) => w.includes('1 events refused (status 400)'))).toBe(true);
  });

  test('a 429 is waited out for its Retry-After, by every call of the SDK', async () => {
    const { browser, sdk } = await installed();
    browser.server.answer('events', { status: 429, body: { error: 'rate_limited', retry_after: 30 }, headers: { 'Retry-After': '5' } });
    sdk.logEvent('a');
    const start = browser.clock.now();
    const flushed = sdk.flush();
    await browser.clock.advance(4_999);
    expect(browser.server.to('events')).toHaveLength(2);
    await browser.clock.advance(1);
    await flushed;
    expect(browser.server.to('events').map((r) => r.at - start).slice(1)).toEqual([0, 5000]);
    expect(browser.server.delivered()).toEqual(['session_start', 'a']);
  });

  test('the body\'s retry_after counts when the header cannot be read', async () => {
    const { browser, sdk } = await installed();
    browser.server.answer('events', { status: 429, body: { error: 'rate_limited', retry_after: 7 } });
    sdk.logEvent('a');
    const start = browser.clock.now();
    await Promise.all([sdk.flush(), browser.clock.advance(10_000)]);
    expect(browser.server.to('events').map((r) => r.at - start).slice(1)).toEqual([0, 7000]);
  });

  test('the install: unlimited attempts, backoff capped at 60 s, events wait for it', async () => {
    const browser = new FakeBrowser();
    browser.server.answer('install', ...Array.from({ length: 12 }, () => 'network' as const));
    const sdk = await browser.load({}, 'https://shop.example/');
    sdk.logEvent('waiting');
    await browser.clock.advance(10 * 60_000);
    const times = browser.server.to('install').map((r) => r.at);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000, 60000, 60000]);
    expect(browser.server.delivered()).toEqual(['session_start', 'waiting']);
    expect(browser.attributions).toHaveLength(1);
  });

  test('the install is resumed on the next page load after the page went away', async () => {
    const browser = new FakeBrowser();
    browser.server.answer('install', 'network', 'network');
    const first = await browser.load({}, 'https://shop.example/landing?svc_click_id=01CLICK00000000000000000AB');
    first.logEvent('a');
    await browser.clock.advance(1000);
    first.stop();
    expect(browser.server.to('install')).toHaveLength(2);
    await browser.clock.advance(3_600_000);
    await browser.load({}, 'https://shop.example/other');
    await browser.clock.advance(0);
    expect(browser.server.to('install')).toHaveLength(3);
    expect(browser.server.to('install')[2]!.body.click_id).toBe('01CLICK00000000000000000AB');
    expect(browser.server.delivered()).toEqual(['session_start', 'a', 'session_start']);
  });

  test('an install refused (wrong key, other platform) is not retried and nothing else is sent', async () => {
    const browser = new FakeBrowser();
    browser.server.answer('install', { status: 401, body: { error: 'unauthorized' } });
    const sdk = await browser.load({}, 'https://shop.example/');
    sdk.logEvent('a');
    await sdk.flush();
    await browser.clock.advance(120_000);
    expect(browser.server.requests.map((r) => r.path)).toEqual(['install']);
    expect(sdk.queueStats().queued).toBe(2);
    expect(browser.warnings).toContain('svc: the install call was refused (status 401)');
  });

  test('coming back online retries at once instead of waiting out the backoff', async () => {
    const browser = new FakeBrowser();
    browser.server.answer('install', 'network', 'network', 'network', 'network', 'network', 'network');
    await browser.load({}, 'https://shop.example/');
    await browser.clock.advance(20_000);
    const before = browser.server.to('install').length;
    browser.page.online();
    await browser.clock.advance(0);
    expect(browser.server.to('install').length).toBe(before + 1);
  });
});

describe('logEvent input', () => {
  test('what the server would refuse throws at the call, and nothing is queued', async () => {
    const { sdk } = await installed();
    const bad: [string, unknown][] = [
      ['', undefined],
      ['x'.repeat(65), undefined],
      ['v', { value: Number.NaN }],
      ['c', { currency: 'EURO' }],
      ['p', { params: [1, 2] }],
      ['p', { params: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }],
      ['p', { params: { ['k'.repeat(129)]: 1 } }],
      ['p', { params: { text: 'x'.repeat(4097) } }],
    ];
    for (const [name, options] of bad) expect(() => sdk.logEvent(name, options as never)).toThrow(TypeError);
    expect(sdk.queueStats().queued).toBe(0);
  });

  test('value, currency and params travel as given; params are copied at the call', async () => {
    const { browser, sdk } = await installed();
    const params = { sku: 'A-1', qty: 2 };
    sdk.logEvent('purchase', { value: 19.99, currency: 'usd', params });
    params.qty = 3;
    await sdk.flush();
    expect(browser.server.to('events')[1]!.body.events[0]).toEqual({
      name: 'purchase',
      value: 19.99,
      currency: 'USD',
      params: { sku: 'A-1', qty: 2 },
      occurred_at: new Date(browser.clock.now()).toISOString(),
    });
  });
});
