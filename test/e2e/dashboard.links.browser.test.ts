import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { register } from '../../src/auth/accounts.service';
import type { Db } from '../../src/db/db';
import { newId } from '../../src/shared/ids';
import { VIEWPORTS, watch, type Watched } from '../support/browser';
import { insertClick } from '../support/clicks';
import { decodeQrPng } from '../support/qr-decode';
import { eventually } from '../support/wait';
import { BROWSER_BACKENDS, checkPage, webAppInBrowser } from '../support/web-app-browser';

/**
 * The links page as a growth team uses it (docs/dashboard.md, "Links"): 1,200 links paged
 * through, searched, filtered and sorted; clicks per row; a short URL copied; a QR code
 * downloaded as PNG and as SVG and read back to the short URL.
 */

setDefaultTimeout(600_000);
const STEP_MS = 30_000;
const LINKS = 1200;
const PAGE_ROWS = 100;
const EMAIL = `links-${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery';
const slugOf = (i: number) => `bulk-${String(i).padStart(4, '0')}`;
/** Which of the links (numbered 1 to 1,200, oldest first) are smart, paused, in the campaign. */
const isSmart = (i: number) => i % 4 === 0;
const isPaused = (i: number) => i % 7 === 0;
const inCampaign = (i: number) => i % 10 === 0;
const CLICKED = 7;
const HOUR_MS = 3_600_000;

/** The organization, a campaign and 1,200 links in three statements; a few clicks on one link. */
async function seed(db: Db): Promise<void> {
  const { orgId } = await register(db, { email: EMAIL, password: PASSWORD, organization: 'Acme Links' });
  const campaignId = newId();
  await db.query('INSERT INTO campaigns (id, org_id, name) VALUES ($1, $2, $3)', [campaignId, orgId, 'Autumn launch']);
  const numbers = Array.from({ length: LINKS }, (_, k) => k + 1);
  const ids = numbers.map(() => newId());
  await db.query(
    `INSERT INTO links (id, org_id, slug, kind, status, campaign_id, destination, created_at)
     SELECT id, $1, slug, kind, status, campaign_id, destination, now() - make_interval(secs => $8::int - n)
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $9::int[]) AS l(id, slug, kind, status, campaign_id, destination, n)`,
    [
      orgId,
      ids,
      numbers.map(slugOf),
      numbers.map((i) => (isSmart(i) ? 'smart' : 'tracking')),
      numbers.map((i) => (isPaused(i) ? 'paused' : 'active')),
      numbers.map((i) => (inCampaign(i) ? campaignId : null)),
      numbers.map((i) => (i === 1111 ? 'https://winter.example.net/boots' : `https://shop.example.com/item/${i}`)),
      LINKS + 1,
      numbers,
    ],
  );
  const clicked = ids[CLICKED - 1]!;
  const now = Date.now();
  for (const hoursAgo of [1, 2, 3, 24 * 5, 24 * 12]) await insertClick(db, { orgId, linkId: clicked, createdAt: new Date(now - hoursAgo * HOUR_MS) });
  await insertClick(db, { orgId, linkId: clicked, createdAt: new Date(now - HOUR_MS), dropReason: 'bot' });
}

for (const backend of BROWSER_BACKENDS) {
  describe(`the links page in the browser on ${backend}`, async () => {
    const { base, browser } = await webAppInBrowser(backend, { RATE_LIMIT: 'off' }, seed);
    const context: BrowserContext = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const watched: Watched = watch(context);
    const page: Page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    const filters = page.getByRole('search', { name: 'Search and filter links' });
    const slugsShown = () => page.locator('tbody tr td:first-child a').allTextContents();
    /** Every slug of the list from the page shown, following "Next page"; the URLs it went through. */
    const readAllPages = async () => {
      const seen: string[] = [];
      const urls: string[] = [];
      for (;;) {
        await page.getByRole('heading', { name: 'Your links' }).waitFor();
        urls.push(page.url());
        seen.push(...(await slugsShown()));
        const next = page.getByRole('link', { name: 'Next page' });
        if ((await next.count()) === 0) return { seen, urls };
        await Promise.all([page.waitForEvent('load'), next.click()]);
      }
    };
    const rowOf = (slug: string) => page.locator('tbody tr', { has: page.getByRole('link', { name: slug, exact: true }) });
    const numbers = Array.from({ length: LINKS }, (_, k) => k + 1);

    test('sign in', async () => {
      await page.goto(`${base}/login`);
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/`);
      watched.assertClean();
    });

    test(`"Next page" reaches every one of ${LINKS} links, newest first`, async () => {
      await page.goto(`${base}/links`);
      await checkPage(page);
      const { seen, urls } = await readAllPages();
      expect(urls).toHaveLength(LINKS / PAGE_ROWS);
      expect(seen).toEqual(numbers.map(slugOf).reverse());
      watched.assertClean();
    });

    test('search by slug, destination and campaign name, sent with the keyboard', async () => {
      await page.goto(`${base}/links`);
      await filters.getByLabel('Search').fill('bulk-011');
      await Promise.all([page.waitForEvent('load'), filters.getByLabel('Search').press('Enter')]);
      expect((await slugsShown()).sort()).toEqual(Array.from({ length: 10 }, (_, k) => slugOf(110 + k)));
      expect(await filters.getByLabel('Search').inputValue()).toBe('bulk-011');

      await filters.getByLabel('Search').fill('WINTER.example.net');
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
      expect(await slugsShown()).toEqual([slugOf(1111)]);

      await filters.getByLabel('Search').fill('autumn');
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
      const { seen } = await readAllPages();
      expect(seen).toEqual(numbers.filter(inCampaign).map(slugOf).reverse());

      await filters.getByLabel('Search').fill('no-such-link');
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
      await page.getByText('No link matches.').waitFor();
      watched.assertClean();
    });

    test('filters by kind, status and campaign, kept on every page', async () => {
      await page.goto(`${base}/links`);
      await filters.getByLabel('Kind').selectOption('smart');
      await filters.getByLabel('Status').selectOption('paused');
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
      const smartPaused = numbers.filter((i) => isSmart(i) && isPaused(i));
      expect(await slugsShown()).toEqual(smartPaused.map(slugOf).reverse());
      const kindAndStatus = await page.locator('tbody tr').evaluateAll((rows: any[]) => rows.map((row) => `${row.cells[2].textContent} ${row.cells[3].textContent}`));
      expect(new Set(kindAndStatus)).toEqual(new Set(['smart paused']));

      await page.goto(`${base}/links`);
      const campaign = filters.getByLabel('Campaign');
      await campaign.selectOption({ label: 'Autumn launch' });
      const campaignId = await campaign.inputValue();
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
      const { seen, urls } = await readAllPages();
      expect(seen).toEqual(numbers.filter(inCampaign).map(slugOf).reverse());
      expect(urls).toHaveLength(2);
      for (const url of urls) expect(new URL(url).searchParams.get('campaign_id')).toBe(campaignId);
      // The form on the second page still shows the filter it was reached with.
      expect(await campaign.inputValue()).toBe(campaignId);

      // The domain filter offers the tracking host, where every one of these links is.
      await page.goto(`${base}/links`);
      await filters.getByLabel('Domain').selectOption(new URL(base).host);
      await filters.getByLabel('Search').fill('bulk-120');
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
      expect(await slugsShown()).toEqual([slugOf(1200)]);
      watched.assertClean();
    });

    test('sorts by slug both ways and by age, page after page', async () => {
      await page.goto(`${base}/links`);
      await filters.getByLabel('Order').selectOption({ label: 'Slug, A to Z' });
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
      const ascending = await readAllPages();
      expect(ascending.seen).toEqual(numbers.map(slugOf));
      for (const url of ascending.urls) expect(new URL(url).searchParams.get('sort')).toBe('slug');

      await page.goto(`${base}/links?sort=-slug&kind=smart`);
      const descending = await readAllPages();
      expect(descending.seen).toEqual(numbers.filter(isSmart).map(slugOf).reverse());

      await page.goto(`${base}/links`);
      await filters.getByLabel('Order').selectOption({ label: 'Oldest first' });
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
      expect((await slugsShown()).slice(0, 3)).toEqual([slugOf(1), slugOf(2), slugOf(3)]);
      watched.assertClean();
    });

    test('each row shows its clicks of the last 24 hours and 30 days', async () => {
      // The analytics mirror copies the seeded clicks on its own timer: reload until it has.
      const counts = await eventually(async () => {
        await page.goto(`${base}/links?q=${slugOf(CLICKED)}`);
        const cells = await rowOf(slugOf(CLICKED)).locator('td.num').allTextContents();
        return cells[1] === '0' ? null : cells;
      }, { timeoutMs: 60_000, everyMs: 500 });
      expect(counts).toEqual(['3', '5']);
      await page.goto(`${base}/links?q=${slugOf(8)}`);
      expect(await rowOf(slugOf(8)).locator('td.num').allTextContents()).toEqual(['0', '0']);
      watched.assertClean();
    });

    test('the copy button puts the short URL on the clipboard', async () => {
      await page.goto(`${base}/links?q=${slugOf(CLICKED)}`);
      await rowOf(slugOf(CLICKED)).getByRole('button', { name: `Copy the short URL of ${slugOf(CLICKED)}` }).click();
      const url = `${base}/c/${slugOf(CLICKED)}`;
      await page.getByRole('status').filter({ hasText: `Copied ${url}` }).waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(url);
      watched.assertClean();
    });

    test('the QR code downloads as PNG and as SVG, each reading back as the short URL', async () => {
      const slug = slugOf(1200);
      const url = `${base}/l/${slug}`;
      await page.goto(`${base}/links?q=${slug}`);
      const row = rowOf(slug);

      const [png] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: `QR code of ${slug} as PNG` }).click()]);
      expect(png.suggestedFilename()).toBe(`${slug}-qr.png`);
      expect(decodeQrPng(readFileSync((await png.path())!))).toBe(url);

      const [svg] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: `QR code of ${slug} as SVG` }).click()]);
      expect(svg.suggestedFilename()).toBe(`${slug}-qr.svg`);
      const svgText = readFileSync((await svg.path())!, 'utf8');
      // Drawn by the browser onto a canvas, as an image viewer or a print would show it.
      const dataUrl = await page.evaluate(async (text: string) => {
        // The test files are typed without the DOM library: the page's globals, untyped.
        const window: any = globalThis;
        const image = new window.Image();
        image.src = `data:image/svg+xml;base64,${window.btoa(text)}`;
        await image.decode();
        const canvas = window.document.createElement('canvas');
        canvas.width = 400;
        canvas.height = 400;
        const drawing = canvas.getContext('2d');
        drawing.fillStyle = '#fff';
        drawing.fillRect(0, 0, 400, 400);
        drawing.drawImage(image, 0, 0, 400, 400);
        return canvas.toDataURL('image/png') as string;
      }, svgText);
      expect(decodeQrPng(Buffer.from(dataUrl.split(',')[1]!, 'base64'))).toBe(url);
      watched.assertClean();
    });

    test('at 375 px every control is labelled and the table scrolls in its own box', async () => {
      await page.setViewportSize(VIEWPORTS.phone);
      await page.goto(`${base}/links?kind=smart`);
      await checkPage(page);
      await page.setViewportSize(VIEWPORTS.desktop);
      watched.assertClean();
    });
  });
}
