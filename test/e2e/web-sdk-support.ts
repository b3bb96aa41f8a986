import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { buildSdk } from '../../sdk/web/scripts/build';
import { ROOT } from '../support/process';
import { tempDir } from '../support/temp-dir';

/** Debian's Chromium (.ci/run installs it); no browser is ever downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
/**
 * A desktop Chrome's user agent. Headless Chromium calls itself HeadlessChrome, which click
 * enrichment rightly takes for a bot, and a bot's click never attributes.
 */
export const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

const EXAMPLE = join(ROOT, 'sdk', 'web', 'example', 'index.html');

/** Replaces `from` in `text`, which must hold it exactly once: the example cannot drift from the test. */
function replaceOnce(text: string, from: string, to: string): string {
  const parts = text.split(from);
  if (parts.length !== 2) throw new Error(`sdk/web/example/index.html should contain ${JSON.stringify(from)} once`);
  return parts.join(to);
}

export interface LandingSite {
  /** The site's origin: another port than the service, so another origin (CORS applies). */
  url: string;
  stop(): void;
}

/**
 * The example landing page with its key and base URL filled in, and the SDK bundle built from
 * the sources now: `/consent` as the example has it (requireConsent), `/landing` without it.
 */
export async function serveLandingSite(options: { sdkKey: string; baseUrl: string }): Promise<LandingSite> {
  const bundle = (await buildSdk(tempDir('web-sdk'))).find((b) => b.format === 'iife')!;
  const script = readFileSync(bundle.path, 'utf8');
  let page = readFileSync(EXAMPLE, 'utf8');
  page = replaceOnce(page, "sdkKey: 'sk_YOUR_WEB_APP_KEY'", `sdkKey: ${JSON.stringify(options.sdkKey)}`);
  page = replaceOnce(page, "baseUrl: 'https://attribution.example.com'", `baseUrl: ${JSON.stringify(options.baseUrl)}`);
  const pages: Record<string, string> = { '/consent': page, '/landing': replaceOnce(page, 'requireConsent: true', 'requireConsent: false') };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === '/svc-sdk.iife.js') return new Response(script, { headers: { 'content-type': 'text/javascript' } });
      const html = pages[path];
      return html ? new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }) : new Response('not found', { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

export interface SdkCall {
  path: string;
  body: any;
  /** The answer's status; 0 when the request failed (offline) or is still under way. */
  status: number;
  at: number;
}

/** Every call a context makes to the service's SDK endpoints and beacon, with how it ended. */
export function recordSdkCalls(context: BrowserContext, serviceUrl: string) {
  const calls: SdkCall[] = [];
  const byRequest = new Map<unknown, SdkCall>();
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${serviceUrl}/api/sdk/`) && url !== `${serviceUrl}/api/protect/beacon`) return;
    if (request.method() !== 'POST') return;
    const call: SdkCall = { path: new URL(url).pathname, body: JSON.parse(request.postData() ?? 'null'), status: 0, at: Date.now() };
    calls.push(call);
    byRequest.set(request, call);
  });
  context.on('requestfinished', async (request) => {
    const call = byRequest.get(request);
    const response = await request.response();
    if (call && response) call.status = response.status();
  });
  return {
    calls,
    to: (path: string) => calls.filter((call) => call.path === path),
    /** Event names of the event batches answered 200, in order. */
    delivered: () => calls.filter((c) => c.path === '/api/sdk/v1/events' && c.status === 200).flatMap((c) => c.body.events.map((e: { name: string }) => e.name)),
  };
}

/** Runs `expression` in the page (the SDK is the global SvcSdk) and answers its value. */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/** A value the SDK keeps in the page's localStorage for `sdkKey`. */
export async function stored<T>(page: Page, sdkKey: string, name: string): Promise<T | null> {
  const raw = await inPage<string | null>(page, `localStorage.getItem(${JSON.stringify(`svc_sdk:${sdkKey}:${name}`)})`);
  return raw === null ? null : (JSON.parse(raw) as T);
}
