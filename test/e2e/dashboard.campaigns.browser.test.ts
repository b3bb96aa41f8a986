import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { BrowserContext } from 'playwright-core';
import { screenshot, VIEWPORTS, watch, type Watched } from '../support/browser';
import { BROWSER_BACKENDS, DESKTOP_CHROME, checkPage, signUpInBrowser, webAppInBrowser } from '../support/web-app-browser';

/**
 * The campaigns and settings pages in Debian's Chromium against the real server: a campaign is
 * created and its partner edited (a bad one first, its error beside the field), a cohort seeded
 * through the SDK API shows its numbers in the heat map, the time zone is set, and an FX CSV
 * is uploaded from a file and its rates listed. Any console error or unexpected failed request fails.
 */

setDefaultTimeout(240_000);
const STEP_MS = 20_000;
const DAY_MS = 86_400_000;


for (const backend of BROWSER_BACKENDS) {
  describe(`campaigns and settings in a browser on ${backend}`, async () => {
    const env: Record<string, string> = { MIRROR_INTERVAL_MS: '200' };
    const { base, browser } = await webAppInBrowser(backend, env);
    const context: BrowserContext = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true, userAgent: DESKTOP_CHROME });
    // The answers the test provokes on purpose: a partner with a leading blank, an unknown zone, a
    // bad rate (400), an external id taken (409).
    const watched: Watched = watch(context, {
      expectedStatus: (url, status) => (status === 400 && /\/api\/dashboard\/(campaigns\/[^/]+|settings|fx-rates)$/.test(url)) || (status === 409 && /\/api\/dashboard\/campaigns$/.test(url)),
    });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    const api = async (method: 'GET' | 'POST', path: string, data?: unknown) => {
      const res = await context.request.fetch(`${base}${path}`, { method, data, headers: { origin: base } });
      return { status: res.status(), body: await res.json() };
    };
    const reloadAfter = async (click: () => Promise<void>) => {
      const loaded = page.waitForEvent('load');
      await click();
      await loaded;
    };

    test('sign up, create a campaign, edit its partner: an error beside the field, then stored', async () => {
      await signUpInBrowser(page, base, 'Acme Campaigns');

      await page.getByRole('link', { name: 'Campaigns' }).click();
      await page.getByText('New campaign', { exact: true }).click();
      await page.locator('#new-campaign-name').fill('Spring <search>');
      await page.locator('#new-campaign-partner').fill('google_ads');
      await page.locator('#new-campaign-external_id').fill('20937465');
      await reloadAfter(() => page.getByRole('button', { name: 'Create campaign' }).click());
      // A second one with the same external id: "taken" beside that field, nothing created.
      await page.getByText('New campaign', { exact: true }).click();
      await page.locator('#new-campaign-name').fill('Copy');
      await page.locator('#new-campaign-external_id').fill('20937465');
      await page.getByRole('button', { name: 'Create campaign' }).click();
      const taken = page.locator('#new-campaign-external_id-error');
      await taken.waitFor({ state: 'visible' });
      expect(await taken.textContent()).toBe('taken');
      expect(await page.locator('#new-campaign-external_id').getAttribute('aria-invalid')).toBe('true');
      const link = page.getByRole('link', { name: 'Spring <search>' });
      await link.click();
      await page.getByRole('heading', { level: 1, name: 'Campaign Spring <search>' }).waitFor();

      const partner = page.locator('#campaign-partner');
      expect(await partner.inputValue()).toBe('google_ads');
      await partner.fill(' meta');
      await page.getByRole('button', { name: 'Save' }).click();
      const error = page.locator('#campaign-partner-error');
      await error.waitFor({ state: 'visible' });
      expect(await error.textContent()).toContain('without leading or trailing blanks');
      expect(await partner.getAttribute('aria-invalid')).toBe('true');

      await partner.fill('meta');
      await reloadAfter(() => page.getByRole('button', { name: 'Save' }).click());
      expect(await page.locator('#campaign-partner').inputValue()).toBe('meta');
      const listed = await api('GET', '/api/dashboard/campaigns');
      expect(listed.body.data.map((c: { name: string; partner: string; external_id: string }) => [c.name, c.partner, c.external_id])).toEqual([['Spring <search>', 'meta', '20937465']]);
      await checkPage(page);
      await screenshot(page, `${backend}-campaign-1440`);
      watched.assertClean();
    });

    test('a cohort sent through the SDK API shows its numbers in the heat map', async () => {
      const app = await api('POST', '/api/dashboard/apps', { name: 'Puzzle', platform: 'android', bundle_id: 'com.example.puzzle' });
      expect(app.status).toBe(201);
      const installedAt = new Date(Date.now() - 5 * DAY_MS);
      const sdk = (path: string, json: unknown) =>
        fetch(`${base}/api/sdk/v1/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-sdk-key': app.body.sdk_key }, body: JSON.stringify(json) });
      // Three installs five days ago; two of them open the app the day after.
      for (let i = 0; i < 3; i++) {
        const device = `device-${Date.now()}-${i}`.padEnd(16, 'x');
        const installed = await sdk('install', { device_id: device, platform: 'android', installed_at: installedAt.toISOString() });
        expect(installed.status).toBe(201);
        if (i === 2) continue;
        const { install_id } = (await installed.json()) as { install_id: string };
        const sent = await sdk('events', { device_id: device, install_id, events: [{ name: 'session_start', occurred_at: new Date(installedAt.getTime() + DAY_MS).toISOString() }] });
        expect(sent.status).toBe(200);
      }
      const day = installedAt.toISOString().slice(0, 10);
      await page.goto(`${base}/campaigns`);
      const row = page.locator('table.heatmap tbody tr', { has: page.locator('th', { hasText: day }) });
      await row.waitFor();
      const cells = await row.locator('td').allTextContents();
      // Installs, then day 0, day 1, day 3 ...: the numbers are in the cells, the shade repeats them.
      expect(cells.slice(0, 4)).toEqual(['3', '0.0%0/3', '66.7%2/3', '0.0%0/3']);
      expect(await row.locator('td').nth(2).getAttribute('class')).toBe('num heat-5');
      expect(cells.at(-1)).toMatch(/not reached/);
      await page.locator('svg[aria-label="Retention by cohort day, per cohort"]').waitFor();
      await screenshot(page, `${backend}-campaigns-cohorts-1440`);
      await page.setViewportSize(VIEWPORTS.phone);
      await checkPage(page);
      await screenshot(page, `${backend}-campaigns-cohorts-375`);
      await page.setViewportSize(VIEWPORTS.desktop);
      watched.assertClean();
    });

    test('set the time zone: an unknown one is refused beside the field, a real one stored', async () => {
      await page.goto(`${base}/settings`);
      const zone = page.getByLabel('Time zone');
      await zone.fill('Mars/Olympus');
      await page.getByRole('button', { name: 'Save reporting settings' }).click();
      const error = page.locator('#reporting-timezone-error');
      await error.waitFor({ state: 'visible' });
      expect(await error.textContent()).toContain('IANA time zone');
      await zone.fill('Europe/Berlin');
      await reloadAfter(() => page.getByRole('button', { name: 'Save reporting settings' }).click());
      expect(await page.getByLabel('Time zone').inputValue()).toBe('Europe/Berlin');
      expect((await api('GET', '/api/dashboard/settings')).body).toEqual({ timezone: 'Europe/Berlin', currency: 'USD' });
      watched.assertClean();
    });

    test('upload an FX CSV from a file: a bad line is named, then the rates are listed', async () => {
      await page.goto(`${base}/settings`);
      const box = page.getByLabel('Rates (CSV)');
      await box.fill('day,currency,rate\n2026-09-01,EUR,1.08\n2026-09-01,eur,1.1');
      await page.getByRole('button', { name: 'Upload rates' }).click();
      const error = page.locator('#fx-rates-rates-error');
      await error.waitFor({ state: 'visible' });
      expect(await error.textContent()).toContain('line 3, currency: must be an ISO 4217 code');
      expect((await api('GET', '/api/dashboard/fx-rates')).body.data).toEqual([]);

      await page.locator('#fx-rates-file').setInputFiles({ name: 'rates.csv', mimeType: 'text/csv', buffer: Buffer.from('day,currency,rate\r\n2026-09-01,EUR,1.08\r\n2026-09-02,GBP,1.27\r\n') });
      // The script reads the file and fills the box: wait for its text.
      const deadline = Date.now() + STEP_MS;
      while (!(await box.inputValue()).includes('GBP')) {
        if (Date.now() > deadline) throw new Error('the file did not fill the box');
        await Bun.sleep(50);
      }
      await reloadAfter(() => page.getByRole('button', { name: 'Upload rates' }).click());
      const table = page.getByRole('table', { name: 'Stored exchange rates, newest day first' });
      expect((await table.locator('tbody tr').allTextContents()).map((text) => text.trim())).toEqual(['2026-09-02GBP1.27USD', '2026-09-01EUR1.08USD']);
      await page.setViewportSize(VIEWPORTS.phone);
      await checkPage(page);
      await screenshot(page, `${backend}-settings-375`);
      await page.setViewportSize(VIEWPORTS.desktop);
      watched.assertClean();
    });
  });
}
