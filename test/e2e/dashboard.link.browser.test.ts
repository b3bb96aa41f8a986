import '../support/slow-suite';
import { createHmac } from 'node:crypto';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { BrowserContext, Page } from 'playwright-core';
import { dayOfNumber, localDayNumber } from '../../src/analytics/reporting/zone-days';
import { screenshot, VIEWPORTS, watch, type Watched } from '../support/browser';
import { BROWSER_BACKENDS, DESKTOP_CHROME, checkPage, seriousViolations, signUpInBrowser, webAppInBrowser } from '../support/web-app-browser';

/**
 * The link page in Debian's Chromium against the real server: clicks made through the edge
 * ingest (backdated, from known addresses) and real /l visits (routed by the rules), an install
 * and conversions of those clicks; the page's numbers match them by day, country, OS, referrer,
 * landing URL and rule. Then every setting is edited (a bad value first, its error beside the
 * field and nothing stored), and the link is deleted after the confirmation.
 */

setDefaultTimeout(300_000);
const STEP_MS = 20_000;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const ZONE = 'Asia/Kolkata';
const INGEST_SECRET = 'link-page-ingest-secret-0123456789';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36';
const RULES = { version: 1, rules: [{ name: 'ios', if: { os: ['ios'] }, then: { url: 'https://ios.example.com/' } }], fallback: { url: 'https://web.example.com/' } };

/** The cells of each body row of a table, trimmed. */
const rowsOf = (page: Page, table: string): Promise<string[][]> =>
  // Runs in the page: the test files are typed without the DOM library.
  page.locator(`${table} tbody tr`).evaluateAll((rows: any[]) => rows.map((row) => [...row.children].map((cell: any) => String(cell.textContent).trim())));

for (const backend of BROWSER_BACKENDS) {
  describe(`the link page in a browser on ${backend}`, async () => {
    const env: Record<string, string> = { MIRROR_INTERVAL_MS: '200', INGEST_SECRET, TRUST_PROXY: '1', RATE_LIMIT: 'off' };
    const { base, browser } = await webAppInBrowser(backend, env);
    const context: BrowserContext = await browser.newContext({ viewport: VIEWPORTS.desktop, userAgent: DESKTOP_CHROME });
    // The refusals the test provokes: bad settings (400) beside their fields.
    const watched: Watched = watch(context, { expectedStatus: (url, status) => status === 400 && /\/api\/dashboard\/links\/[^/]+$/.test(url) });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    const api = async (method: string, path: string, data?: unknown, headers: Record<string, string> = {}) => {
      const res = await context.request.fetch(`${base}${path}`, { method, data, headers: { origin: base, ...headers } });
      return { status: res.status(), body: res.headers()['content-type']?.startsWith('application/json') ? await res.json() : null };
    };
    const reloadAfter = async (click: () => Promise<void>) => {
      const loaded = page.waitForEvent('load');
      await click();
      await loaded;
    };
    const visit = async (slug: string, ua: string, ip: string) => {
      const res = await fetch(`${base}/l/${slug}`, { redirect: 'manual', headers: { 'user-agent': ua, 'x-forwarded-for': ip } });
      expect(res.status).toBe(302);
      return new URL(res.headers.get('location')!).searchParams.get('svc_click_id')!;
    };
    let link: { id: string; slug: string } = { id: '', slug: '' };
    const now = Date.now();
    const localDay = (at: number) => dayOfNumber(localDayNumber(ZONE, at));

    test('sign up; a smart link with clicks from the edge and from /l, an install and conversions of them', async () => {
      await signUpInBrowser(page, base, 'Acme Link');
      expect((await api('PUT', '/api/dashboard/settings', { timezone: ZONE, currency: 'USD' })).status).toBe(200);
      const campaign = await api('POST', '/api/dashboard/campaigns', { name: 'Spring sale' });
      expect(campaign.status).toBe(201);
      const made = await api('POST', '/api/dashboard/links', { kind: 'smart', slug: 'spring-smart', destination: 'https://shop.example.com/', rules: RULES, campaign_id: campaign.body.id });
      expect(made.status).toBe(201);
      link = made.body;

      // Three clicks two days and an hour ago from a US address on an iPhone, two nine days ago from Kenya on Android.
      const row = (ago: number, ip: string, ua: string, referer: string, url: string) => ({ slug: link.slug, ts: new Date(now - ago).toISOString(), ip, user_agent: ua, referer, url });
      const events = [
        ...Array.from({ length: 3 }, () => row(2 * DAY_MS + HOUR_MS, '8.8.8.8', IPHONE, 'https://www.google.com/search?q=shoes', 'https://shop.example.com/spring?utm_source=g')),
        ...Array.from({ length: 2 }, () => row(9 * DAY_MS, '41.90.1.1', ANDROID, 'https://news.example.org/story', 'https://shop.example.com/autumn#top')),
      ];
      const raw = JSON.stringify({ events });
      const signature = createHmac('sha256', INGEST_SECRET).update(raw).digest('hex');
      const ingested = await fetch(`${base}/api/ingest/clicks`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-signature': signature }, body: raw });
      expect(await ingested.json()).toEqual({ accepted: 5, rejected: [] });
      // Now, through the rules: two iPhones take rule "ios", a desktop the fallback.
      const iphoneClicks = [await visit(link.slug, IPHONE, '8.8.8.8'), await visit(link.slug, IPHONE, '8.8.8.8')];
      await visit(link.slug, DESKTOP_CHROME, '41.90.1.1');

      // The clicks are written behind their answers: wait until the mirror shows all eight.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const stats = await api('GET', `/api/dashboard/links/${link.id}/analytics`);
        expect(stats.status).toBe(200);
        if (stats.body.totals.clicks === 8) break;
        if (Date.now() > deadline) throw new Error(`the clicks did not arrive: ${JSON.stringify(stats.body.totals)}`);
        await Bun.sleep(200);
      }
      const app = await api('POST', '/api/dashboard/apps', { name: 'Shop', platform: 'ios', bundle_id: 'com.example.shop' });
      expect(app.status).toBe(201);
      const installed = await fetch(`${base}/api/sdk/v1/install`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sdk-key': app.body.sdk_key },
        body: JSON.stringify({ device_id: `device-${Date.now()}`.padEnd(16, 'x'), platform: 'ios', click_id: iphoneClicks[0] }),
      });
      expect(installed.status).toBe(201);
      const key = await api('POST', '/api/dashboard/keys', { name: 'conversions' });
      expect(key.status).toBe(201);
      for (const [clickId, value] of [[iphoneClicks[0], 10], [iphoneClicks[1], 5]] as const) {
        const converted = await fetch(`${base}/api/v1/conversions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key.body.api_key}` },
          body: JSON.stringify({ click_id: clickId, event: 'purchase', value, currency: 'EUR' }),
        });
        expect(converted.status).toBeLessThan(300);
      }
      watched.assertClean();
    });

    test("the page's numbers are the clicks made: by day, hour, country, OS, referrer, landing URL, rule; installs and conversions", async () => {
      await page.goto(`${base}/links/${link.id}`);
      await page.getByRole('heading', { level: 1, name: 'Link spring-smart' }).waitFor();
      const totals = await page.locator('.link-totals dd').allTextContents();
      expect(totals).toEqual(['8', '3', '1', '2']);
      expect(await page.getByText(`in ${ZONE}`).count()).toBe(1);

      const days = Object.fromEntries((await rowsOf(page, '#link-days')).filter((cells) => cells.slice(1).some((cell) => cell !== '0')).map((cells) => [cells[0], cells.slice(1)]));
      const expected: Record<string, number[]> = {};
      const add = (day: string, column: number, n: number) => {
        expected[day] ??= [0, 0, 0];
        expected[day][column]! += n;
      };
      add(localDay(now - 2 * DAY_MS - HOUR_MS), 0, 3);
      add(localDay(now - 9 * DAY_MS), 0, 2);
      add(localDay(now), 0, 3);
      add(localDay(Date.now()), 1, 1);
      add(localDay(Date.now()), 2, 2);
      expect(days).toEqual(Object.fromEntries(Object.entries(expected).map(([day, counts]) => [day, counts.map(String)])));
      const busyHours = (await rowsOf(page, '#link-hours')).filter((cells) => cells[1] !== '0');
      expect(busyHours.map((cells) => cells[1])).toEqual(['3']);
      expect(await rowsOf(page, '#link-countries')).toEqual([['US', '5'], ['KE', '3']]);
      const os = await rowsOf(page, '#link-os');
      expect(os.slice(0, 2)).toEqual([['iOS', '5'], ['Android', '2']]);
      expect(os.reduce((sum, cells) => sum + Number(cells[1]), 0)).toBe(8);
      expect((await rowsOf(page, '#link-devices')).find((cells) => cells[0] === 'mobile')).toEqual(['mobile', '7']);
      expect(await rowsOf(page, '#link-referrers')).toEqual([['www.google.com', '3'], ['None (direct)', '3'], ['news.example.org', '2']]);
      expect(await rowsOf(page, '#link-landing')).toEqual([
        ['https://shop.example.com/spring', '3'],
        ['https://ios.example.com/', '2'],
        ['https://shop.example.com/autumn', '2'],
        ['https://web.example.com/', '1'],
      ]);
      expect(await rowsOf(page, '#link-routes')).toEqual([
        ['Rule 1 “ios” (url)', '2', '66.7%'],
        ['No rule matched: the rules’ fallback', '1', '33.3%'],
      ]);
      expect(await rowsOf(page, '#link-conversions')).toEqual([['purchase', '2', '15', 'EUR']]);
      await page.locator('svg[aria-label="Clicks, installs and conversions by day, last 30 days"]').waitFor();
      await page.locator('svg[aria-label="Clicks by hour, last 48 hours"]').waitFor();
      // The rules section is as it was: the box holds the stored rules.
      expect(JSON.parse(await page.getByLabel('Rules (JSON)').inputValue())).toEqual(RULES);
      expect(await page.getByRole('link', { name: 'Spring sale' }).count()).toBe(1);
      await checkPage(page);
      // axe-core (from npm): no serious or critical violation.
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `${backend}-link-1440`);
      await page.setViewportSize(VIEWPORTS.phone);
      await checkPage(page);
      await screenshot(page, `${backend}-link-375`);
      await page.setViewportSize(VIEWPORTS.desktop);
      watched.assertClean();
    });

    test('every setting: a bad value is refused beside its field and nothing changes; good values are stored', async () => {
      const stored = async () => (await api('GET', `/api/dashboard/links/${link.id}`)).body;
      const before = await stored();
      await page.goto(`${base}/links/${link.id}`);

      // Delivery: a bad expiry and a bad host (line 2) at once, each beside its field.
      await page.locator('#link-delivery-expires_at').fill('next tuesday');
      await page.locator('#link-delivery-allowed_landing_hosts').fill('shop.example\nhttps://bad.example/path');
      await page.getByRole('button', { name: 'Update delivery' }).click();
      const expiryError = page.locator('#link-delivery-expires_at-error');
      await expiryError.waitFor({ state: 'visible' });
      expect(await expiryError.textContent()).toContain('ISO 8601');
      expect(await page.locator('#link-delivery-expires_at').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#link-delivery-allowed_landing_hosts-error').textContent()).toMatch(/^line 2: /);
      expect(await stored()).toEqual(before);

      await page.locator('#link-delivery-expires_at').fill('2031-01-01T00:00:00Z');
      await page.locator('#link-delivery-click_cap').fill('5000');
      await page.locator('#link-delivery-deep_link_path').fill('/product/42');
      await page.locator('#link-delivery-domain').fill('go.example.com');
      await page.locator('#link-delivery-allowed_landing_hosts').fill('shop.example\n*.brand.example\n');
      await page.locator('#link-delivery-pass_params').check();
      await reloadAfter(() => page.getByRole('button', { name: 'Update delivery' }).click());
      expect(await stored()).toMatchObject({
        expires_at: '2031-01-01T00:00:00.000Z',
        click_cap: 5000,
        deep_link_path: '/product/42',
        domain: 'go.example.com',
        allowed_landing_hosts: ['shop.example', '*.brand.example'],
        pass_params: true,
        rules: before.rules,
        destination: before.destination,
      });
      // The page shows what is stored; the domain's note says it is not verified yet.
      expect(await page.locator('#link-delivery-click_cap').inputValue()).toBe('5000');
      expect(await page.locator('#link-delivery-domain-hint').textContent()).toContain('verif');

      // Preview: an http image is refused beside it; then all three are stored.
      await page.locator('#link-preview-preview-title').fill('Spring sale');
      await page.locator('#link-preview-preview-image').fill('http://cdn.example.com/card.png');
      await page.getByRole('button', { name: 'Update preview' }).click();
      const imageError = page.locator('#link-preview-preview-image-error');
      await imageError.waitFor({ state: 'visible' });
      expect(await imageError.textContent()).toContain('https');
      expect((await stored()).preview).toBeNull();
      await page.locator('#link-preview-preview-description').fill('Everything 20% off');
      await page.locator('#link-preview-preview-image').fill('https://cdn.example.com/card.png');
      await reloadAfter(() => page.getByRole('button', { name: 'Update preview' }).click());
      expect((await stored()).preview).toEqual({ title: 'Spring sale', description: 'Everything 20% off', image: 'https://cdn.example.com/card.png' });
      // One member changed: the whole preview is sent, so the others stay.
      await page.locator('#link-preview-preview-title').fill('Summer sale');
      await reloadAfter(() => page.getByRole('button', { name: 'Update preview' }).click());
      expect((await stored()).preview).toEqual({ title: 'Summer sale', description: 'Everything 20% off', image: 'https://cdn.example.com/card.png' });

      // Destination and status, in the settings beside the rules; clearing a field sends null.
      await page.getByLabel('Destination').fill('https://shop.example.com/summer');
      await page.getByLabel('Status').selectOption('paused');
      await reloadAfter(() => page.getByRole('button', { name: 'Save' }).click());
      await page.locator('#link-delivery-click_cap').fill('');
      await page.locator('#link-delivery-pass_params').uncheck();
      await reloadAfter(() => page.getByRole('button', { name: 'Update delivery' }).click());
      expect(await stored()).toMatchObject({ destination: 'https://shop.example.com/summer', status: 'paused', click_cap: null, pass_params: false, rules: before.rules, deep_link_path: '/product/42' });
      watched.assertClean();
    });

    test('delete: nothing without the confirmation; with it the link is gone and the list follows', async () => {
      await page.goto(`${base}/links/${link.id}`);
      page.once('dialog', (dialog) => void dialog.dismiss());
      await page.getByRole('button', { name: 'Delete link' }).click();
      expect((await api('GET', `/api/dashboard/links/${link.id}`)).status).toBe(200);
      page.once('dialog', (dialog) => {
        expect(dialog.message()).toContain('spring-smart');
        void dialog.accept();
      });
      await page.getByRole('button', { name: 'Delete link' }).click();
      await page.waitForURL(`${base}/links`);
      expect((await api('GET', `/api/dashboard/links/${link.id}`)).status).toBe(404);
      expect(await page.getByRole('link', { name: 'spring-smart' }).count()).toBe(0);
      watched.assertClean();
    });
  });
}
