import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectSecurityHeaders } from '../support/http';
import { createLinkOver } from '../support/over-http';
import { freePort, startServer, type RunningServer } from '../support/server';

/**
 * The real server answers GET /c and GET /i from Bun's own routes, not through the app.
 * These pin that the answers are the same: the spec's headers on every response, its error
 * bodies, and 405 (from the app) for any other method on those paths.
 */
describe('tracking routes on the real server', () => {
  let server: RunningServer;
  let slug: string;
  beforeAll(async () => {
    const port = await freePort();
    server = await startServer({ PORT: String(port), TRACKING_URL: `http://127.0.0.1:${port}`, BASE_URL: `http://127.0.0.1:${port}` });
    ({ slug } = await createLinkOver(server));
  }, 60_000);
  afterAll(async () => {
    await server?.stop('SIGTERM');
  }, 60_000);

  test('a click answers one 302 with the click id, no-store, the security headers, no cookie and no body', async () => {
    const response = await fetch(`${server.url}/c/${slug}?url=${encodeURIComponent('https://shop.example.com/p?a=1#top')}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toMatch(/^https:\/\/shop\.example\.com\/p\?a=1&svc_click_id=[0-9A-Z]{26}#top$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('set-cookie')).toBeNull();
    expectSecurityHeaders(response);
    expect(await response.text()).toBe('');
  });

  test('clicks arriving together are answered together, each with its own Location, status and body', async () => {
    // More than one batch of answers (answer-batch.ts), with failures among the redirects.
    const pages = Array.from({ length: 150 }, (_, i) => i);
    const answers = await Promise.all(
      pages.map((i) =>
        i % 10 === 9
          ? fetch(`${server.url}/c/no-such-slug-${i}`, { redirect: 'manual' })
          : fetch(`${server.url}/c/${slug}?url=${encodeURIComponent(`https://shop.example.com/page-${i}`)}`, { redirect: 'manual' }),
      ),
    );
    const clickIds = new Set<string>();
    for (const [i, response] of answers.entries()) {
      if (i % 10 === 9) {
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ error: 'link not found' });
        continue;
      }
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location')!);
      expect(location.pathname).toBe(`/page-${i}`);
      clickIds.add(location.searchParams.get('svc_click_id')!);
      expect(await response.text()).toBe('');
    }
    expect(clickIds.size).toBe(135);
  });

  test('an unknown slug answers the JSON 404 with the security headers', async () => {
    const response = await fetch(`${server.url}/c/no-such-slug-here`, { redirect: 'manual' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'link not found' });
    expectSecurityHeaders(response);
  });

  test('an unsafe landing URL answers the spec-shaped 400 with the security headers', async () => {
    const response = await fetch(`${server.url}/c/${slug}?url=${encodeURIComponent('javascript:alert(1)')}`, { redirect: 'manual' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { formErrors: string[]; fieldErrors: Record<string, string[]> } };
    expect(Object.keys(body.error.fieldErrors)).toEqual(['url']);
    expectSecurityHeaders(response);
  });

  test('the pixel answers the GIF with no-store and the security headers, even for an unknown campaign', async () => {
    const response = await fetch(`${server.url}/i/unknown-campaign`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/gif');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expectSecurityHeaders(response);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(30);
  });

  test('other methods on the tracking paths answer 405 from the app, with Allow', async () => {
    for (const path of [`/c/${slug}`, '/i/some-campaign']) {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', redirect: 'manual' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toContain('GET');
      expectSecurityHeaders(response);
    }
  });
});
