import { afterAll, expect } from 'bun:test';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { openPglite } from '../../src/db/pglite';
import { launchBrowser, VIEWPORTS, watch, type Watched, type WatchOptions } from './browser';
import { createPostgres } from './db';
import { startServer, type RunningServer } from './server';
import { tempDir } from './temp-dir';

/**
 * What the web app's browser tests share (test/e2e/dashboard.*.browser.test.ts): the backends
 * they run on, the real server on one of them with a browser beside it, and the checks every
 * page passes.
 */

/** PGlite always; real Postgres too when DATABASE_URL is set. */
export const BROWSER_BACKENDS = ['pglite', ...(process.env.DATABASE_URL ? ['postgres'] : [])];
export const BOOT_MS = 120_000;
const AXE_SOURCE = readFileSync(Bun.resolveSync('axe-core/axe.min.js', import.meta.dir), 'utf8');
/** A desktop Chrome's user agent: headless Chromium's own names it a bot, whose clicks reports leave out. */
export const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36';

export interface WebAppInBrowser {
  server: RunningServer;
  /** BASE_URL's default, http://localhost:<port>: the browser uses that origin, as a user would. */
  base: string;
  browser: Browser;
}

/**
 * Rows written straight into the store before the server starts (PGlite's files are the server's
 * own once it runs): a migrated database on `backend`, handed to `seed`; answers the server's
 * DATABASE_URL (Postgres) or DATA_DIR (PGlite).
 */
async function seededStore(backend: string, seed: (db: Db) => Promise<void>): Promise<{ url?: string; dataDir?: string }> {
  if (backend === 'postgres') {
    const { db, url } = await createPostgres();
    await seed(db);
    return { url };
  }
  const dataDir = tempDir('e2e');
  const db = await openPglite(join(dataDir, 'pglite'));
  try {
    await migrate(db);
    await seed(db);
  } finally {
    await db.close();
  }
  return { dataDir };
}

/**
 * The real server on `backend` (a fresh database on Postgres) and a browser, both stopped when
 * the calling describe block ends. The stop is registered before the browser starts: if it
 * cannot, the server is still stopped. `seed` writes rows into the store before the server starts.
 */
export async function webAppInBrowser(backend: string, env: Record<string, string>, seed?: (db: Db) => Promise<void>): Promise<WebAppInBrowser> {
  const serverEnv = { ...env };
  const store = seed ? await seededStore(backend, seed) : {};
  if (backend === 'postgres') serverEnv.DATABASE_URL = store.url ?? (await createPostgres({ migrated: false })).url;
  const server = await startServer(serverEnv, { timeoutMs: BOOT_MS, dataDir: store.dataDir });
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close().catch(() => {});
    await server.stop();
  });
  browser = await launchBrowser();
  return { server, base: `http://localhost:${server.port}`, browser };
}

/** The management API called with an API key (read when called): the status and the JSON answer. */
export function managementApi(base: string, apiKey: () => string) {
  return async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${apiKey()}`, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    return { status: res.status, payload: (await res.json()) as any };
  };
}

/** Creates an organization in the browser and an API key on /keys; answers the key. */
export async function signUpWithApiKey(page: Page, base: string, organization: string): Promise<string> {
  await signUpInBrowser(page, base, organization);
  await page.goto(`${base}/keys`);
  await page.getByLabel('Name').fill(`${organization} test`);
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = page.locator('#new-key-value');
  await key.waitFor({ state: 'visible' });
  const apiKey = (await key.textContent()) ?? '';
  expect(apiKey).toMatch(/^svc_live_/);
  return apiKey;
}

/**
 * Polls a browser-side expression until it is true. (waitForFunction evaluates text in the page,
 * which the app's CSP forbids, as it should; page.evaluate goes through the debugger instead.)
 */
export async function until(page: Page, expression: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const check = () => page.evaluate<boolean>(`(() => { try { return Boolean(${expression}); } catch { return false; } })()`);
  // A page navigating meanwhile (a reload after a save) has no context to evaluate in: try again.
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${expression}`);
    await Bun.sleep(50);
  }
}

/**
 * axe-core's serious and critical violations on the page, one line each. The source goes in
 * through the debugger (page.evaluate): the app's CSP rightly refuses an injected script tag.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate<{ checked: number; lines: string[] }>(`axe.run(document).then((result) => ({
    checked: result.passes.length,
    lines: result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.slice(0, 4).map((n) => n.target.join(' ') + (n.failureSummary ? ' [' + n.failureSummary.replace(/\\s+/g, ' ') + ']' : '')).join('; ')),
  }))`);
  // axe really looked: contrast, labels and landmarks pass on every page.
  expect(found.checked).toBeGreaterThan(5);
  return found.lines;
}

/** Every control has a label, and nothing is wider than the window (tables scroll in their own box). */
export async function checkPage(page: Page): Promise<void> {
  // Browser-side code is passed as text: the test files are typed without the DOM library.
  const unlabelled = await page.evaluate<string[]>(
    "[...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.outerHTML)",
  );
  expect(unlabelled).toEqual([]);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow).toBeLessThanOrEqual(0);
}

/** Creates an organization and its first user through /register, as a visitor would; the page ends on the overview. */
export async function signUpInBrowser(page: Page, base: string, organization: string): Promise<void> {
  await page.goto(`${base}/register`);
  await page.getByLabel('Organization').fill(organization);
  await page.getByLabel('Email').fill(`${organization.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Date.now()}@example.com`);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${base}/`);
}

/** The step limit of the web app's browser tests: generous, as a loaded 2-core machine is slow. */
export const STEP_MS = 20_000;

/**
 * A desktop page of a fresh context, watched for console errors and failed requests (those
 * `expectedStatus` allows aside), and `saveAndReload`, which clicks a form's Save button
 * (of the form `within`, or the page's only one) and waits for the reload it causes.
 */
export async function watchedDesktopPage(browser: Browser, expectedStatus?: WatchOptions['expectedStatus']): Promise<{ context: BrowserContext; page: Page; watched: Watched; saveAndReload: (within?: string) => Promise<void> }> {
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
  const watched = watch(context, { expectedStatus });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  const saveAndReload = async (within?: string) => {
    const reloaded = page.waitForEvent('load');
    await (within ? page.locator(within) : page).getByRole('button', { name: 'Save' }).click();
    await reloaded;
  };
  return { context, page, watched, saveAndReload };
}

