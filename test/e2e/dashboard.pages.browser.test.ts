import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { BROWSER_BACKENDS, managementApi, signUpWithApiKey, watchedDesktopPage, webAppInBrowser } from '../support/web-app-browser';

/**
 * The web app's edit forms change only what the user changed (an example is offered by a
 * button, never saved), and the links page reaches every link of a long list, a page at a time.
 */

setDefaultTimeout(300_000);
const LINKS = 509;


for (const backend of BROWSER_BACKENDS) {
  describe(`web app forms and pages on ${backend}`, async () => {
    // Rate limits off: the test makes 509 links through the API from one address.
    const env: Record<string, string> = { RATE_LIMIT: 'off' };
    const { base, browser } = await webAppInBrowser(backend, env);
    // The one answer of 400 the test provokes: a links page whose cursor was edited by hand.
    const { page, watched, saveAndReload } = await watchedDesktopPage(browser, (url, status) => status === 400 && url.includes('/links?cursor=not-a-cursor'));
    let apiKey = '';
    const api = managementApi(base, () => apiKey);

    test('sign up and create an API key', async () => {
      apiKey = await signUpWithApiKey(page, base, 'Acme Pages');
      watched.assertClean();
    });

    test("editing a smart link's destination leaves its rules as they were", async () => {
      const rules = { version: 1, rules: [{ name: 'android', if: { os: ['android'] }, then: { url: 'https://android.example.com/' } }], fallback: { url: 'https://web.example.com/' } };
      const made = await api('/api/v1/links', { method: 'POST', json: { kind: 'smart', slug: 'rules-kept', destination: 'https://before.example.com/', rules } });
      expect(made.status).toBe(201);
      const stored = made.payload.rules;

      await page.goto(`${base}/links`);
      await page.locator('tr', { hasText: 'rules-kept' }).getByRole('link', { name: 'Edit rules' }).click();
      await page.getByRole('heading', { name: 'Link rules-kept' }).waitFor();
      expect(JSON.parse(await page.getByLabel('Rules (JSON)').inputValue())).toEqual(stored);
      await page.getByLabel('Destination').fill('https://after.example.com/');
      await saveAndReload();

      const after = await api(`/api/v1/links/${made.payload.id}`);
      expect(after.payload.destination).toBe('https://after.example.com/');
      expect(after.payload.rules).toEqual(stored);
      expect(JSON.stringify(after.payload.rules)).not.toContain('apps.apple.com');
      watched.assertClean();
    });

    test('a new smart link saved with an untouched rules box stores no rules; the example is only a button', async () => {
      await page.goto(`${base}/links`);
      await page.locator('#new-link').getByLabel('Kind').selectOption('smart');
      await page.getByLabel('Destination').fill('https://fresh.example.com/');
      await page.getByLabel('Slug').fill('fresh-smart');
      await page.getByRole('button', { name: 'Create link' }).click();
      await page.locator('tr', { hasText: 'fresh-smart' }).getByRole('link', { name: 'Edit rules' }).click();
      await page.getByRole('heading', { name: 'Link fresh-smart' }).waitFor();
      const box = page.getByLabel('Rules (JSON)');
      expect(await box.inputValue()).toBe('');

      await page.getByLabel('Status').selectOption('paused');
      await saveAndReload();
      const id = new URL(page.url()).pathname.split('/').pop()!;
      const saved = await api(`/api/v1/links/${id}`);
      expect(saved.payload.status).toBe('paused');
      expect(saved.payload.rules).toBeNull();
      expect(saved.payload.destination).toBe('https://fresh.example.com/');

      // The example goes into the box only when asked for, and is stored only when then saved.
      await page.getByRole('button', { name: 'Insert example' }).click();
      expect(await box.inputValue()).toContain('apps.apple.com');
      expect((await api(`/api/v1/links/${id}`)).payload.rules).toBeNull();

      // Saving with nothing changed sends nothing and says so.
      await page.goto(`${base}/links/${id}`);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('#link-settings [role="alert"]', { hasText: 'nothing changed' }).waitFor();
      watched.assertClean();
    });

    test(`the links page reaches every one of ${LINKS} links through "Next page"`, async () => {
      const existing = (await api('/api/v1/links?limit=1000')).payload.data.length as number;
      const slugs = Array.from({ length: LINKS - existing }, (_, i) => `bulk-${String(i + 1).padStart(3, '0')}`);
      // A few at a time: the order of creation is the order of the list, newest first.
      for (let i = 0; i < slugs.length; i += 8) {
        const made = await Promise.all(slugs.slice(i, i + 8).map((slug) => api('/api/v1/links', { method: 'POST', json: { slug, destination: `https://shop.example.com/${slug}` } })));
        for (const answer of made) expect(answer.status).toBe(201);
      }
      const oldest = (await api('/api/v1/links?limit=1000')).payload.data.at(-1).slug as string;

      await page.goto(`${base}/links`);
      const seen: string[] = [];
      for (;;) {
        await page.getByRole('heading', { name: 'Your links' }).waitFor();
        seen.push(...(await page.locator('tbody tr td:first-child a').allTextContents()));
        const next = page.getByRole('link', { name: 'Next page' });
        if ((await next.count()) === 0) break;
        await next.click();
      }
      expect(seen).toHaveLength(LINKS);
      expect(new Set(seen).size).toBe(LINKS);
      expect(seen.at(-1)).toBe(oldest);
      expect(seen).toContain('bulk-001');
      // A page link edited by hand is refused with a page, not a stack trace.
      const bad = await page.goto(`${base}/links?cursor=not-a-cursor`);
      expect(bad?.status()).toBe(400);
      expect(await page.getByRole('link', { name: 'First page' }).count()).toBe(1);
      watched.assertClean();
    });
  });
}
