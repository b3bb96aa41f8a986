import '../support/slow-suite';
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { apiKeyOver } from '../support/over-http';
import type { RunningServer } from '../support/server';
import { eventually } from '../support/wait';
import { e2eBackends, startTrackingServer, type E2eBackend } from './tracking-support';
import { CHROMIUM, inPage, recordSdkCalls, serveLandingSite, stored, USER_AGENT, type LandingSite } from './web-sdk-support';
import { clickIdOf } from '../support/clicks';

/**
 * The web SDK (sdk/web) in Debian's Chromium against the real server: the example landing page
 * is served from another origin, reached through a `/c` redirect, and talks to /api/sdk/v1 and
 * the beacon over CORS (docs/web-sdk.md).
 */

// A real server per backend, a browser, and waits of a few seconds on the SDK's own timers.
setDefaultTimeout(180_000);

const json = { 'content-type': 'application/json' };

/** The server's name for a raw device id (src/sdk/device-id.ts): SHA-256 hex. */
const deviceHash = (raw: string) => createHash('sha256').update(raw).digest('hex');

for (const backend of await e2eBackends()) {
  describe(`web SDK in Chromium on ${backend.name}`, () => {
    let server: RunningServer;
    let site: LandingSite;
    let browser: Browser;
    let apiKey: string;
    let sdkKey: string;
    let slug: string;
    const contexts: BrowserContext[] = [];
    /** What each scenario left for the storage checks at the end. */
    const devices: Record<string, string> = {};
    const clicks: Record<string, string> = {};

    beforeAll(async () => {
      server = await startTrackingServer(backend);
      apiKey = await apiKeyOver(server);
      const auth = { ...json, authorization: `Bearer ${apiKey}` };
      const app = await fetch(`${server.url}/api/v1/apps`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Shop website', platform: 'web' }) });
      expect(app.status).toBe(201);
      sdkKey = ((await app.json()) as { sdk_key: string }).sdk_key;
      const link = await fetch(`${server.url}/api/v1/links`, { method: 'POST', headers: auth, body: JSON.stringify({ destination: 'https://shop.example/' }) });
      expect(link.status).toBe(201);
      slug = ((await link.json()) as { slug: string }).slug;
      site = await serveLandingSite({ sdkKey, baseUrl: server.url });
      browser = await chromium.launch({ executablePath: CHROMIUM });
    });

    afterAll(async () => {
      await browser?.close();
      site?.stop();
      if (server && server.proc.exitCode === null) await server.stop();
    });

    async function newPage(): Promise<{ context: BrowserContext; page: Page; sdk: ReturnType<typeof recordSdkCalls> }> {
      const context = await browser.newContext({ userAgent: USER_AGENT });
      contexts.push(context);
      const sdk = recordSdkCalls(context, server.url);
      return { context, page: await context.newPage(), sdk };
    }

    /** Opens the tracking link with the landing page as its visible `url`, as an ad click would. */
    const viaRedirect = (page: Page, landingPath: string) => page.goto(`${server.url}/c/${slug}?url=${encodeURIComponent(`${site.url}${landingPath}`)}`);

    test('a page loaded from a /c redirect keeps the click id, and its install is attributed CLICK_ID', async () => {
      const { page, sdk } = await newPage();
      const installed = page.waitForResponse((r) => r.url() === `${server.url}/api/sdk/v1/install`);
      await viaRedirect(page, '/landing');
      const clickId = clickIdOf(page.url());
      expect(clickId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(page.url().startsWith(`${site.url}/landing?svc_click_id=`)).toBe(true);
      const answer = await installed;
      expect(answer.status()).toBe(201);
      expect(await answer.json()).toMatchObject({ attribution: { method: 'CLICK_ID', click_id: clickId } });
      expect(sdk.to('/api/sdk/v1/install')[0]!.body).toMatchObject({ platform: 'web', click_id: clickId, sdk_version: '0.1.0' });
      await page.waitForFunction("document.getElementById('attribution').textContent === 'CLICK_ID'");
      expect(await stored<{ id: string }>(page, sdkKey, 'click')).toMatchObject({ id: clickId });

      // Another page of the site, without the parameter: the click is still kept, nothing is installed again.
      await page.goto(`${site.url}/landing#later`);
      await page.waitForFunction("document.getElementById('attribution').textContent === 'CLICK_ID'");
      expect(await stored<{ id: string }>(page, sdkKey, 'click')).toMatchObject({ id: clickId });
      expect(sdk.to('/api/sdk/v1/install')).toHaveLength(1);
      devices.clickId = (await stored<string>(page, sdkKey, 'device'))!;
      clicks.clickId = clickId;
    });

    test("the beacon updates the click's risk", async () => {
      const { page } = await newPage();
      await viaRedirect(page, '/landing');
      const clickId = clickIdOf(page.url());
      await page.waitForFunction("document.getElementById('attribution').textContent === 'CLICK_ID'");
      await page.mouse.wheel(0, 400);
      // Scroll events are dispatched on the frames after the position changed.
      await page.waitForFunction('window.scrollY > 0');
      await inPage(page, 'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
      // Leaving the page (pagehide) sends this page view's beacon (sendBeacon, after the page is gone:
      // the browser reports no request for it, so the server's side is what is checked).
      await page.goto('about:blank');
      const risk = await eventually(async () => {
        const res = await fetch(`${server.url}/api/v1/clicks?limit=1000`, { headers: { authorization: `Bearer ${apiKey}` } });
        const click = ((await res.json()) as { data: { id: string; riskScore: number; riskReasons: string[] }[] }).data.find((c) => c.id === clickId);
        return click && click.riskReasons.includes('webdriver') ? click : undefined;
      });
      // Chromium under automation reports navigator.webdriver; that alone weighs 60.
      expect(risk.riskScore).toBeGreaterThanOrEqual(60);
      clicks.beacon = clickId;
    });

    test('consent pending sends nothing until granted; then the install, with the kept click id, and every queued event', async () => {
      const { page, sdk } = await newPage();
      await viaRedirect(page, '/consent');
      const clickId = clickIdOf(page.url());
      expect(await inPage(page, 'SvcSdk.consentStatus()')).toBe('pending');
      expect(await page.isVisible('#consent')).toBe(true);
      await inPage(page, "for (let n = 1; n <= 21; n++) SvcSdk.logEvent('pending_' + n)");
      await inPage(page, 'SvcSdk.flush()');
      // Past the 10 s flush timer: still nothing.
      await Bun.sleep(10_500);
      expect(sdk.calls).toEqual([]);
      expect(await inPage(page, 'SvcSdk.queueStats()')).toEqual({ queued: 22, dropped: 0 });
      expect(await stored<{ id: string }>(page, sdkKey, 'click')).toMatchObject({ id: clickId });

      const installed = page.waitForResponse((r) => r.url() === `${server.url}/api/sdk/v1/install`);
      await page.click('#accept');
      expect(await (await installed).json()).toMatchObject({ attribution: { method: 'CLICK_ID', click_id: clickId } });
      const names = ['session_start', ...Array.from({ length: 21 }, (_, i) => `pending_${i + 1}`)];
      await eventually(() => sdk.delivered().length >= names.length);
      expect(sdk.delivered()).toEqual(names);
      expect(await stored<string>(page, sdkKey, 'consent')).toBe('granted');

      // The decision is kept: the next page view starts granted, with no banner and no second install.
      await page.reload();
      expect(await inPage(page, 'SvcSdk.consentStatus()')).toBe('granted');
      expect(await page.isVisible('#consent')).toBe(false);
      await page.waitForFunction("document.getElementById('attribution').textContent === 'CLICK_ID'");
      expect(sdk.to('/api/sdk/v1/install')).toHaveLength(1);
      devices.consent = (await stored<string>(page, sdkKey, 'device'))!;
      clicks.consent = clickId;
    });

    test('consent denied clears the queue and nothing is ever sent', async () => {
      const { page, sdk } = await newPage();
      await viaRedirect(page, '/consent');
      clicks.denied = clickIdOf(page.url());
      await inPage(page, "for (let n = 1; n <= 5; n++) SvcSdk.logEvent('denied_' + n)");
      expect(await inPage(page, 'SvcSdk.queueStats()')).toEqual({ queued: 6, dropped: 0 });
      await page.click('#decline');
      expect(await inPage(page, 'SvcSdk.consentStatus()')).toBe('denied');
      expect(await stored(page, sdkKey, 'queue')).toBeNull();
      expect(await stored(page, sdkKey, 'click')).toBeNull();
      await inPage(page, "SvcSdk.logEvent('denied_after'); SvcSdk.flush()");
      expect(await inPage(page, 'SvcSdk.queueStats()')).toEqual({ queued: 0, dropped: 0 });

      // Reloaded from the same ad click, still denied; leaving the page sends no beacon either.
      await page.reload();
      expect(await inPage(page, 'SvcSdk.consentStatus()')).toBe('denied');
      expect(await page.isVisible('#consent')).toBe(false);
      await page.click('#buy');
      await page.goto('about:blank');
      await Bun.sleep(1_000);
      expect(sdk.calls).toEqual([]);
    });

    test('the network cut, then restored, delivers every event once', async () => {
      const { context, page, sdk } = await newPage();
      await page.goto(`${site.url}/landing`);
      await eventually(() => sdk.delivered().includes('session_start'));
      await context.setOffline(true);
      // The 20th event starts a flush, which fails on every attempt and keeps the events.
      await inPage(page, "for (let n = 1; n <= 25; n++) SvcSdk.logEvent('offline_' + n)");
      await eventually(() => sdk.to('/api/sdk/v1/events').filter((c) => c.status === 0).length >= 3, { timeoutMs: 30_000 });
      expect(sdk.delivered()).toEqual(['session_start']);
      // The batch given up on goes back into the queue.
      await eventually(async () => (await inPage<{ queued: number }>(page, 'SvcSdk.queueStats()')).queued === 25);

      // Back online: the browser's online event flushes at once.
      await context.setOffline(false);
      const expected = ['session_start', ...Array.from({ length: 25 }, (_, i) => `offline_${i + 1}`)];
      await eventually(() => sdk.delivered().length >= expected.length, { timeoutMs: 30_000 });
      await Bun.sleep(1_000);
      expect(sdk.delivered()).toEqual(expected);
      expect((await inPage<{ queued: number }>(page, 'SvcSdk.queueStats()')).queued).toBe(0);
      devices.offline = (await stored<string>(page, sdkKey, 'device'))!;
    });

    test('a 429 with Retry-After is waited out, then the batch is delivered once', async () => {
      const { context, page, sdk } = await newPage();
      const attempts: number[] = [];
      await context.route(`${server.url}/api/sdk/v1/events`, async (route) => {
        attempts.push(Date.now());
        if (attempts.length > 1) return route.continue();
        return route.fulfill({
          status: 429,
          headers: { 'retry-after': '3', 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After', 'content-type': 'application/json' },
          body: JSON.stringify({ error: 'rate_limited', retry_after: 3 }),
        });
      });
      await page.goto(`${site.url}/landing`);
      await inPage(page, "SvcSdk.logEvent('after_429')");
      await eventually(() => sdk.delivered().length >= 1, { timeoutMs: 30_000 });
      // The first batch was refused; the next attempt came after the 3 s asked for, not the 1 s backoff.
      expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(2_900);
      await eventually(() => sdk.delivered().includes('after_429'), { timeoutMs: 30_000 });
      expect(sdk.delivered().filter((name) => name === 'session_start')).toHaveLength(1);
      expect(sdk.delivered().filter((name) => name === 'after_429')).toHaveLength(1);
      devices.rateLimited = (await stored<string>(page, sdkKey, 'device'))!;
    });

    test('the server stored each install and each event once', async () => {
      for (const context of contexts) await context.close();
      // The embedded store belongs to the server process: read it once the server has stopped.
      if (backend.name === 'pglite') await server.stop();
      const query = <T>(text: string, params: unknown[]) => backend.query<T>(server.dataDir, text, params);
      const eventsOf = async (device: string) =>
        (await query<{ name: string; n: number }>('SELECT name, count(*)::int AS n FROM events WHERE device_id_hash = $1 GROUP BY name', [deviceHash(device)]))
          .map((row) => `${row.name}:${row.n}`)
          .sort();
      const installOf = (device: string) => query<{ attribution_method: string; click_id: string | null }>('SELECT attribution_method, click_id FROM installs WHERE device_id_hash = $1', [deviceHash(device)]);

      expect(await installOf(devices.clickId!)).toEqual([{ attribution_method: 'CLICK_ID', click_id: clicks.clickId! }]);
      expect(await installOf(devices.consent!)).toEqual([{ attribution_method: 'CLICK_ID', click_id: clicks.consent! }]);
      const once = (...names: string[]) => names.map((name) => `${name}:1`).sort();
      const numbered = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
      expect(await eventsOf(devices.consent!)).toEqual(once('session_start', ...numbered('pending_', 21)));
      expect(await eventsOf(devices.offline!)).toEqual(once('session_start', ...numbered('offline_', 25)));
      expect(await eventsOf(devices.rateLimited!)).toEqual(once('session_start', 'after_429'));
      expect(await query('SELECT name FROM events WHERE name LIKE $1', ['denied%'])).toEqual([]);

      const beacons = (clickId: string) => query<Record<string, unknown>>('SELECT screen, timezone, languages, webdriver, fingerprint, dwell_ms, scroll FROM click_beacons WHERE click_id = $1', [clickId]);
      const [beacon] = await beacons(clicks.beacon!);
      expect(beacon).toMatchObject({ webdriver: true, screen: expect.stringMatching(/^\d+x\d+$/), fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/), timezone: expect.any(String), languages: expect.any(String) });
      expect(beacon!.dwell_ms as number).toBeGreaterThan(0);
      expect(beacon!.scroll as number).toBeGreaterThan(0);
      // The denied visitor's page view sent no beacon, though it had a click id and was left.
      expect(await beacons(clicks.denied!)).toEqual([]);
    });
  });
}
