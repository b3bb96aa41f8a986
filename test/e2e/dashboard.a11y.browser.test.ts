import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { BrowserContext, Page } from 'playwright-core';
import { NAVIGATION } from '../../src/dashboard/web/layout';
import { VIEWPORTS, watch, type Watched } from '../support/browser';
import { BROWSER_BACKENDS, checkPage, seriousViolations, webAppInBrowser } from '../support/web-app-browser';

/**
 * The web app's words, error pages and looks in Chromium: messages in words, every field error at
 * once, a failed route test clearing the last answer; axe-core (from node_modules, never a CDN)
 * finds no serious or critical violation on any page, signed out and signed in, light and dark;
 * every page loads with no console error and no failed request.
 */

setDefaultTimeout(300_000);
const STEP_MS = 20_000;
const SCHEMES = ['light', 'dark'] as const;

for (const backend of BROWSER_BACKENDS) {
  describe(`web app messages and accessibility on ${backend}`, async () => {
    const { base, browser } = await webAppInBrowser(backend, {});
    const context: BrowserContext = await browser.newContext({ viewport: VIEWPORTS.desktop });
    // The refusals the test provokes: bad sign-up and sign-in bodies, a taken slug, a bad route
    // test, and the two error pages it checks.
    const watched: Watched = watch(context, {
      expectedStatus: (url, status) =>
        (status === 400 && /\/(register|api\/dashboard\/route-test)$/.test(url)) ||
        (status === 401 && url.endsWith('/login')) ||
        (status === 409 && url.endsWith('/api/dashboard/links')) ||
        (status === 404 && (url.endsWith('/no-such-page') || url.endsWith('/l/no-such-link'))),
    });
    const page: Page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    const email = `a11y-${Date.now()}@example.com`;
    const password = 'correct horse battery';
    const signedOutPages = ['/login', '/register', '/docs', '/no-such-page', '/l/no-such-link'];
    const signedInPages: string[] = [...NAVIGATION.map((item) => item.path), '/no-such-page'];

    const axeEverywhere = async (paths: string[]) => {
      const found: string[] = [];
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const path of paths) {
          await page.goto(`${base}${path}`);
          await page.getByRole('heading', { level: 1 }).first().waitFor();
          for (const line of await seriousViolations(page)) found.push(`${scheme} ${path}: ${line}`);
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      return found;
    };

    test('signed-out pages, light and dark: no serious or critical axe violation, no console error', async () => {
      expect(await axeEverywhere(signedOutPages)).toEqual([]);
      watched.assertClean();
    });

    test('sign-up shows every field error at once, in words', async () => {
      await page.goto(`${base}/register`);
      await page.getByLabel('Email').fill('not-an-email');
      await page.getByLabel('Password').fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      const passwordError = page.locator('#register-password-error');
      await passwordError.waitFor({ state: 'visible' });
      expect(await passwordError.textContent()).toBe('at least 8 characters');
      expect(await page.locator('#register-email-error').textContent()).toBe('not an email address');
      expect(await page.locator('#register-organization-error').textContent()).toBe('required');
      expect(await page.getByLabel('Organization').getAttribute('aria-invalid')).toBe('true');
      // The first field in error has the focus, for a keyboard or screen-reader user.
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('register-organization');
      expect(await page.content()).not.toContain('Expected string');

      await page.getByLabel('Organization').fill('Acme Words');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByLabel('Password').press('Enter');
      await page.waitForURL(`${base}/`);
      watched.assertClean();
    });

    test('a taken slug is said beside the slug; a failed route test clears the last decision', async () => {
      const headers = { origin: base };
      const made = await page.request.post(`${base}/api/dashboard/links`, { headers, data: { kind: 'smart', slug: 'words-smart', destination: 'https://web.example.com/' } });
      expect(made.status()).toBe(201);
      const link = await made.json();

      await page.goto(`${base}/links`);
      await page.getByLabel('Destination').fill('https://web.example.com/other');
      await page.getByLabel('Slug').fill('words-smart');
      await page.getByRole('button', { name: 'Create link' }).click();
      const slugError = page.locator('#new-link-slug-error');
      await slugError.waitFor({ state: 'visible' });
      expect(await slugError.textContent()).toBe('slug taken');
      expect(await page.getByLabel('Slug').getAttribute('aria-invalid')).toBe('true');

      await page.goto(`${base}/links/${link.id}`);
      await page.getByRole('button', { name: 'Test route' }).click();
      const result = page.locator('#route-test-result');
      await result.waitFor({ state: 'visible' });
      expect(await result.textContent()).toContain('web.example.com');
      await page.getByLabel('Hour (0 to 23)').fill('99');
      await page.getByRole('button', { name: 'Test route' }).click();
      const hourError = page.locator('#route-test-hour-error');
      await hourError.waitFor({ state: 'visible' });
      expect(await hourError.textContent()).toBe('must be an integer from 0 to 23');
      expect(await result.isVisible()).toBe(false);
      expect(await result.textContent()).toBe('');
      watched.assertClean();
    });

    test('signed-in pages, light and dark, with rows in their tables: no serious or critical axe violation', async () => {
      const headers = { origin: base };
      const app = await page.request.post(`${base}/api/dashboard/apps`, { headers, data: { name: 'Shop', platform: 'ios', bundle_id: 'com.example.shop' } });
      expect(app.status()).toBe(201);
      const campaign = await page.request.post(`${base}/api/dashboard/campaigns`, { headers, data: { name: 'Spring sale' } });
      expect(campaign.status()).toBe(201);
      const key = await page.request.post(`${base}/api/dashboard/keys`, { headers, data: { name: 'Reporting' } });
      expect(key.status()).toBe(201);
      const link = (await (await page.request.get(`${base}/api/dashboard/links`)).json()).data[0];
      const pages = [...signedInPages, `/links/${link.id}`, `/campaigns/${(await campaign.json()).id}`];
      expect(await axeEverywhere(pages)).toEqual([]);
      watched.assertClean();
    });

    test('every form of every page submits with the keyboard alone', async () => {
      const link = (await (await page.request.get(`${base}/api/dashboard/links`)).json()).data[0];
      const problems: string[] = [];
      let forms = 0;
      const campaignHref = await (async () => {
        await page.goto(`${base}/campaigns`);
        return page.locator('a[href^="/campaigns/"]').first().getAttribute('href');
      })();
      for (const path of [...signedInPages, `/links/${link.id}`, campaignHref!]) {
        await page.goto(`${base}${path}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        // Browser-side code as text: the test files are typed without the DOM library. A form
        // submits from the keyboard when Enter in a field or on its button sends it: it needs a
        // submit button that is in the tab order; a control that writes outside a form must be a
        // button (Enter and Space press it), and no control of a form may be out of the tab order.
        const found = await page.evaluate<string[]>(`(() => {
          const problems = [];
          const name = (el) => el.id || el.getAttribute('name') || el.getAttribute('data-api') || el.tagName;
          for (const form of document.querySelectorAll('form')) {
            const submit = [...form.querySelectorAll('button, input[type=submit]')].find((b) => (b.type || 'submit') === 'submit' && !b.disabled && b.tabIndex >= 0);
            if (!submit) problems.push('form ' + name(form) + ' has no submit button in the tab order');
            for (const control of form.querySelectorAll('input:not([type=hidden]), select, textarea, button')) {
              if (control.tabIndex < 0) problems.push('form ' + name(form) + ': ' + name(control) + ' is out of the tab order');
            }
          }
          for (const el of document.querySelectorAll('[data-api]:not(form)')) {
            if (el.tagName !== 'BUTTON') problems.push(name(el) + ' writes but is a ' + el.tagName + ', not a button');
          }
          return problems;
        })()`);
        for (const problem of found) problems.push(`${path}: ${problem}`);
        forms += await page.locator('form').count();
      }
      expect(problems).toEqual([]);
      // The pages were checked with their forms in them.
      expect(forms).toBeGreaterThan(20);
      // And one form really sent by the keyboard alone: "New campaign" opened with Enter, the
      // name typed, Tab to the next fields, Enter to send.
      await page.goto(`${base}/campaigns`);
      const name = `Keyboard ${Date.now()}`;
      await page.locator('summary', { hasText: 'New campaign' }).focus();
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('new-campaign-name');
      await page.keyboard.type(name);
      await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
      expect(await page.getByText(name).count()).toBeGreaterThan(0);
      watched.assertClean();
    });

    test('every signed-in page at 375 px, dark: labelled controls, nothing wider than the window', async () => {
      await page.setViewportSize(VIEWPORTS.phone);
      await page.emulateMedia({ colorScheme: 'dark' });
      for (const path of signedInPages) {
        await page.goto(`${base}${path}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await checkPage(page);
        // Dark really is dark: the page's ground is not the light one.
        expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).not.toBe('rgb(244, 246, 249)');
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize(VIEWPORTS.desktop);
      watched.assertClean();
    });

    test('a wrong password says so in words', async () => {
      await page.goto(`${base}/settings`);
      await page.getByRole('button', { name: 'Sign out' }).first().click();
      await page.waitForURL(`${base}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const alert = page.locator('#login [role="alert"]');
      await alert.waitFor({ state: 'visible' });
      expect(await alert.textContent()).toBe('wrong email or password');
      watched.assertClean();
    });
  });
}
