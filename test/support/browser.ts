import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { ROOT } from './process';

/**
 * A real browser for tests: Debian's Chromium driven by playwright-core, never a downloaded one
 * (.ci/run installs the `chromium` package when it is missing). `watch` records what makes a
 * browser test fail: console errors, uncaught exceptions and failed requests.
 */

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where screenshots go: TEST_OUTPUT_DIR, else .tmp/test-output/browser (git-ignored). */
export const SCREENSHOT_DIR = process.env.TEST_OUTPUT_DIR ? join(process.env.TEST_OUTPUT_DIR, 'browser') : join(ROOT, '.tmp', 'test-output', 'browser');

/** Headless, no GPU; --no-sandbox because CI runs as root, where Chromium's sandbox refuses to start. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export interface WatchOptions {
  /**
   * Responses the test provokes on purpose (a 400 to see a field error): their request and the
   * console line Chromium logs for them are not problems.
   */
  expectedStatus?: (url: string, status: number) => boolean;
}

export interface Watched {
  /** Everything that went wrong so far, one line each. */
  problems(): string[];
  /** Throws with every problem when there is any. */
  assertClean(): void;
}

/**
 * Records every problem on the pages of `context`: a console error, an uncaught exception, a
 * request that failed, an answer of 400 or more the test did not expect. Two things are not
 * failures: a request the browser aborted because its page went away (a stream, a download),
 * and Chromium's console line for an expected status.
 */
export function watch(context: BrowserContext, options: WatchOptions = {}): Watched {
  const problems: string[] = [];
  const expected = options.expectedStatus ?? (() => false);
  const expectedUrls = new Set<string>();
  const downloads = new Set<string>();
  const onPage = (page: Page) => {
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const location = message.location().url;
      if (/Failed to load resource: the server responded with a status of \d+/.test(message.text()) && expectedUrls.has(location)) return;
      problems.push(`console error on ${page.url()}: ${message.text()} (${location})`);
    });
    page.on('pageerror', (error) => problems.push(`uncaught on ${page.url()}: ${error.message}`));
    page.on('download', (download) => downloads.add(download.url()));
  };
  context.on('page', onPage);
  for (const page of context.pages()) onPage(page);
  context.on('response', (response) => {
    if (response.status() < 400) return;
    if (expected(response.url(), response.status())) expectedUrls.add(response.url());
    else problems.push(`${response.status()} for ${response.request().method()} ${response.url()}`);
  });
  context.on('requestfailed', (request: Request) => {
    const error = request.failure()?.errorText ?? 'failed';
    if (error === 'net::ERR_ABORTED' && (request.resourceType() === 'eventsource' || downloads.has(request.url()) || request.frame().page().isClosed())) return;
    problems.push(`request failed: ${request.method()} ${request.url()}: ${error}`);
  });
  return {
    problems: () => [...problems],
    assertClean() {
      if (problems.length > 0) throw new Error(`the browser reported problems:\n${problems.join('\n')}`);
    },
  };
}

/** A full-page screenshot into SCREENSHOT_DIR as `<name>.png`; answers the file's path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name.replace(/[^A-Za-z0-9_.-]+/g, '-')}.png`);
  // The API reference is some 50,000 px tall: on a loaded machine its picture takes longer than a step.
  await page.screenshot({ path, fullPage: true, timeout: 90_000 });
  return path;
}

/** The widths the web app is checked at: a small phone and a desktop. */
export const VIEWPORTS = { phone: { width: 375, height: 812 }, desktop: { width: 1440, height: 900 } } as const;
