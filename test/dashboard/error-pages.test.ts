import { describe, expect, test } from 'bun:test';
import { body, testApp, TEST_TRACKING_URL } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';

/** A browser never gets raw JSON: unknown pages and a smart link's refusals are pages when HTML is asked for. */

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

for (const backend of backends()) {
  describe(`error pages on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const get = (path: string, accept?: string) => t.request(path, { headers: accept ? { accept } : {} });
    const me = await orgWithKey(db, 'Pages');
    const makeLink = async (json: Record<string, unknown>) => {
      const res = await t.request('/api/v1/links', { method: 'POST', headers: me.auth, json });
      expect(res.status).toBe(201);
      return body(res);
    };

    test('an unknown page of the app is a 404 page in the app frame for a browser', async () => {
      const res = await get('/no-such-page', BROWSER);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toStartWith('text/html');
      expectSecurityHeaders(res);
      const page = await res.text();
      expect(page).toContain('<h1>Page not found</h1>');
      expect(page).toContain('href="/"');
      expect(page).toContain('aria-label="Main"');
    });

    test('API clients keep JSON: Accept application/json, no Accept, any path under /api', async () => {
      for (const [path, accept] of [['/no-such-page', 'application/json'], ['/no-such-page', undefined], ['/no-such-page', '*/*'], ['/api/v1/nothing', BROWSER], ['/api/nothing', BROWSER]] as const) {
        const res = await get(path, accept);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toStartWith('application/json');
        expect(await body(res)).toEqual({ error: 'not found' });
      }
    });

    test('a method a path does not take is still the 405, not a page', async () => {
      const res = await t.request('/links', { method: 'DELETE', headers: { accept: BROWSER, origin: 'http://api.test.local' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('content-type')).toStartWith('application/json');
    });

    test('the not-found page never echoes the address it was asked for', async () => {
      const res = await get('/%3Cscript%3Ealert(1)%3C%2Fscript%3E', BROWSER);
      expect(res.status).toBe(404);
      const page = await res.text();
      expect(page).not.toContain('<script>alert');
      expect(page).not.toContain('alert(1)');
    });

    test("a visitor's 404 and 410 on /l are pages for a browser and JSON for a client", async () => {
      const missing = await get(`${TEST_TRACKING_URL}/l/no-such-link`, BROWSER);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toStartWith('text/html');
      expect(missing.headers.get('cache-control')).toBe('no-store');
      expectSecurityHeaders(missing);
      expect(await missing.text()).toContain('Link not found');
      const asClient = await get(`${TEST_TRACKING_URL}/l/no-such-link`, 'application/json');
      expect(asClient.status).toBe(404);
      expect(await body(asClient)).toEqual({ error: 'link not found' });

      const capped = await makeLink({ kind: 'smart', slug: `cap${Date.now()}`, destination: 'https://shop.example.com/', click_cap: 1 });
      expect((await get(`${TEST_TRACKING_URL}/l/${capped.slug}`, BROWSER)).status).toBe(302);
      const ended = await get(`${TEST_TRACKING_URL}/l/${capped.slug}`, BROWSER);
      expect(ended.status).toBe(410);
      expect(ended.headers.get('content-type')).toStartWith('text/html');
      expect(await ended.text()).toContain('This link has ended');
      const endedForClient = await get(`${TEST_TRACKING_URL}/l/${capped.slug}`);
      expect(endedForClient.status).toBe(410);
      expect(endedForClient.headers.get('content-type')).toStartWith('application/json');
    });

    test('/c keeps no HTML in any answer, whatever the browser asks for', async () => {
      const res = await get(`${TEST_TRACKING_URL}/c/no-such-link`, BROWSER);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toStartWith('application/json');
      expect(await res.text()).not.toContain('<');
    });

    test("another organization's paused smart link reads as unknown: the same page, nothing of the link in it", async () => {
      const other = await orgWithKey(db, 'Other');
      const made = await t.request('/api/v1/links', { method: 'POST', headers: other.auth, json: { kind: 'smart', slug: `theirs${Date.now()}`, destination: 'https://secret.example.com/', status: 'paused' } });
      expect(made.status).toBe(201);
      const link = await body(made);
      const res = await get(`${TEST_TRACKING_URL}/l/${link.slug}`, BROWSER);
      expect(res.status).toBe(404);
      const page = await res.text();
      expect(page).toContain('Link not found');
      expect(page).not.toContain('secret.example.com');
      expect(page).not.toContain(link.slug);
    });

    test('/docs is inside the app frame, with a way back to the app', async () => {
      const res = await get('/docs', BROWSER);
      expect(res.status).toBe(200);
      const page = await res.text();
      expect(page).toContain('aria-label="Main"');
      expect(page).toContain('href="/docs" aria-current="page"');
      expect(page).toContain('Back to the app');
    });
  });
}
