import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Locator } from 'playwright-core';
import { screenshot, VIEWPORTS } from '../support/browser';
import { BROWSER_BACKENDS, checkPage, managementApi, seriousViolations, signUpWithApiKey, until, watchedDesktopPage, webAppInBrowser } from '../support/web-app-browser';

/**
 * The visual rules editor of a smart link's page: a rule set built with the rows and reordered
 * by keyboard and by drag is the one stored; the JSON view and the rows follow each other; the
 * route test answers in words; rules the rows cannot show stay intact in the JSON view.
 */

setDefaultTimeout(300_000);

for (const backend of BROWSER_BACKENDS) {
  describe(`the rules editor on ${backend}`, async () => {
    const { base, browser } = await webAppInBrowser(backend, { RATE_LIMIT: 'off' });
    // The one 400 the test provokes: a save whose country code the API refuses.
    const { page, watched, saveAndReload: save } = await watchedDesktopPage(browser, (url, status) => status === 400 && url.includes('/api/dashboard/links/'));
    let apiKey = '';
    const api = managementApi(base, () => apiKey);
    const saveAndReload = () => save('#link-settings');
    const jsonView = () => page.getByLabel('Rules (JSON)');
    const row = (n: number): Locator => page.locator('.rule-row').nth(n - 1);
    const rowNames = () => page.locator('.rule-row [data-key="name"]').evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value));
    const addCondition = (n: number, label: string) => row(n).getByLabel(`Rule ${n}: add a condition`).selectOption({ label });
    let linkId = '';

    test('sign up and create an API key', async () => {
      apiKey = await signUpWithApiKey(page, base, 'Acme Rules');
    });

    test('a rule set built with the rows, reordered by keyboard, is the one stored', async () => {
      const made = await api('/api/v1/links', { method: 'POST', json: { kind: 'smart', slug: 'visual', destination: 'https://shop.example.com/' } });
      expect(made.status).toBe(201);
      linkId = made.payload.id;
      await page.goto(`${base}/links/${linkId}`);
      await page.getByRole('heading', { name: 'Link visual' }).waitFor();
      expect(await jsonView().inputValue()).toBe('');
      await page.getByText('No rules yet').waitFor();

      // Rule 1: iPhones in the US and Canada into the app, the App Store without it.
      await page.getByRole('button', { name: 'Add rule' }).click();
      await row(1).getByLabel('Rule 1: name').fill('ios-us');
      await addCondition(1, 'Country');
      await row(1).getByLabel('Rule 1: country values, comma-separated').fill('us, ca');
      await addCondition(1, 'OS');
      await row(1).getByRole('group', { name: 'Rule 1: OS' }).getByLabel('iOS').check();
      await row(1).getByLabel('Rule 1: then').selectOption({ label: 'Open the app (deep link)' });
      await row(1).getByLabel('Rule 1: deep link').fill('myapp://promo/1');
      await row(1).getByLabel('Rule 1: fallback URL without the app').fill('https://apps.apple.com/app/id123');

      // Rule 2: an A/B test for the newsletter on German weekday office hours, outside apps.
      await page.getByRole('button', { name: 'Add rule' }).click();
      await row(2).getByLabel('Rule 2: name').fill('news-ab');
      await addCondition(2, 'Parameter');
      await row(2).getByLabel('Rule 2: parameter name').fill('utm_source');
      await row(2).getByLabel('Rule 2: values of the parameter, comma-separated (* any value)').fill('news, mail');
      await addCondition(2, 'Language');
      await row(2).getByLabel('Rule 2: language values, comma-separated').fill('DE');
      await addCondition(2, 'In-app browser');
      await row(2).getByLabel('Rule 2: in-app browser').selectOption('false');
      await addCondition(2, 'Hours');
      await row(2).getByLabel('Rule 2: hours from').selectOption('8');
      await row(2).getByLabel('Rule 2: hours to (not included)').selectOption('18');
      await row(2).getByLabel('Rule 2: hours time zone').fill('Europe/Berlin');
      await addCondition(2, 'Weekdays');
      for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']) await row(2).getByRole('group', { name: 'Rule 2: Weekdays' }).getByLabel(day).check();
      await row(2).getByLabel('Rule 2: then').selectOption({ label: 'A/B variants' });
      await row(2).getByLabel('Rule 2, variant 1: URL').fill('https://a.example.com/');
      await row(2).getByLabel('Rule 2, variant 1: weight').fill('70');
      await row(2).getByLabel('Rule 2, variant 2: URL').fill('https://b.example.com/');
      await row(2).getByLabel('Rule 2, variant 2: weight').fill('20');
      await row(2).getByRole('button', { name: 'Add variant to rule 2' }).click();
      await row(2).getByLabel('Rule 2, variant 3: URL').fill('https://c.example.com/');
      await row(2).getByLabel('Rule 2, variant 3: weight').fill('10');

      // Rule 3: datacenter traffic refused.
      await page.getByRole('button', { name: 'Add rule' }).click();
      await row(3).getByLabel('Rule 3: name').fill('datacenters');
      await addCondition(3, 'IP type');
      await row(3).getByRole('group', { name: 'Rule 3: IP type' }).getByLabel('Datacenter').check();
      await row(3).getByLabel('Rule 3: then').selectOption({ label: 'Refuse the visit' });
      await row(3).getByLabel('Rule 3: refuse with').selectOption('403');
      await page.getByLabel('Fallback URL', { exact: true }).fill('https://web.example.com/fallback');
      expect(await rowNames()).toEqual(['ios-us', 'news-ab', 'datacenters']);

      // The keyboard alone: Alt+ArrowUp twice takes the datacenter rule to the top, the focus with it.
      await row(3).getByLabel('Rule 3: name').focus();
      await page.keyboard.press('Alt+ArrowUp');
      await page.keyboard.press('Alt+ArrowUp');
      expect(await rowNames()).toEqual(['datacenters', 'ios-us', 'news-ab']);
      expect(await page.evaluate<string>('document.activeElement.getAttribute("aria-label")')).toBe('Rule 1: name');
      await page.getByText('Rule 1 \u201cdatacenters\u201d moved to position 1 of 3.').waitFor({ state: 'attached' });
      // ... and the move buttons: Enter on "Move rule 2 down", then the focus stays on that button.
      await page.getByRole('button', { name: 'Move rule 2 down' }).focus();
      await page.keyboard.press('Enter');
      expect(await rowNames()).toEqual(['datacenters', 'news-ab', 'ios-us']);
      expect(await page.evaluate<string>('document.activeElement.getAttribute("aria-label")')).toBe('Move rule 3 down');
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Enter');
      expect(await rowNames()).toEqual(['datacenters', 'ios-us', 'news-ab']);

      const expected = {
        version: 1,
        rules: [
          { name: 'datacenters', if: { ip_type: ['datacenter'] }, then: { block: 403 } },
          { name: 'ios-us', if: { country: ['US', 'CA'], os: ['ios'] }, then: { deep_link: 'myapp://promo/1', fallback: 'https://apps.apple.com/app/id123' } },
          {
            name: 'news-ab',
            if: { params: { utm_source: ['news', 'mail'] }, language: ['de'], in_app: false, hours: { from: 8, to: 18, tz: 'Europe/Berlin' }, weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] },
            then: { variants: [{ url: 'https://a.example.com/', weight: 70 }, { url: 'https://b.example.com/', weight: 20 }, { url: 'https://c.example.com/', weight: 10 }] },
          },
        ],
        fallback: { url: 'https://web.example.com/fallback' },
      };
      expect(JSON.parse(await jsonView().inputValue())).toEqual(expected);
      expect(await seriousViolations(page)).toEqual([]);
      await checkPage(page);
      await screenshot(page, `${backend}-rules-editor-1440`);
      await saveAndReload();
      const stored = await api(`/api/v1/links/${linkId}`);
      expect(stored.payload.rules).toEqual(expected);
      expect(await rowNames()).toEqual(['datacenters', 'ios-us', 'news-ab']);
      watched.assertClean();
    });

    test('a drag of a row reorders the rules', async () => {
      await page.goto(`${base}/links/${linkId}`);
      await page.locator('.rule-row').first().waitFor();
      await row(3).locator('.rule-handle').dragTo(row(1));
      expect(await rowNames()).toEqual(['news-ab', 'datacenters', 'ios-us']);
      expect(JSON.parse(await jsonView().inputValue()).rules.map((rule: { name: string }) => rule.name)).toEqual(['news-ab', 'datacenters', 'ios-us']);
      watched.assertClean();
    });

    test('edits of the JSON view move the rows; an edit undone saves nothing', async () => {
      await page.goto(`${base}/links/${linkId}`);
      await page.locator('.rule-row').first().waitFor();
      const stored = JSON.parse(await jsonView().inputValue());
      const edited = structuredClone(stored);
      edited.rules[1].name = 'apple-north-america';
      edited.rules[1].if.city = ['Toronto'];
      edited.rules.splice(0, 1);
      await jsonView().fill(JSON.stringify(edited, null, 2));
      expect(await rowNames()).toEqual(['apple-north-america', 'news-ab']);
      expect(await row(1).getByLabel('Rule 1: city values, comma-separated').inputValue()).toBe('Toronto');
      expect(await row(1).getByLabel('Rule 1: country values, comma-separated').inputValue()).toBe('US, CA');
      await page.getByText('The rules have unsaved changes').waitFor();

      // JSON that is not valid yet: the rows step aside, the JSON view stays, then they come back.
      await jsonView().fill('{"version": 1, "rules": [');
      await page.getByText('The visual editor cannot show these rules: the JSON is not valid yet').waitFor();
      expect(await page.locator('.rule-row').count()).toBe(0);
      await jsonView().fill(JSON.stringify(stored, null, 2));
      expect(await rowNames()).toEqual(['datacenters', 'ios-us', 'news-ab']);

      // A name changed in a row and changed back: the JSON is the page's own again, nothing is sent.
      await row(1).getByLabel('Rule 1: name').fill('datacenters-x');
      expect(JSON.parse(await jsonView().inputValue()).rules[0].name).toBe('datacenters-x');
      await row(1).getByLabel('Rule 1: name').fill('datacenters');
      await page.locator('#link-settings').getByRole('button', { name: 'Save' }).click();
      await page.locator('#link-settings [role="alert"]', { hasText: 'nothing changed' }).waitFor();

      // A row not filled in yet is named beside it, and nothing is sent.
      await page.getByRole('button', { name: 'Add rule' }).click();
      await addCondition(4, 'Country');
      await page.locator('#link-settings').getByRole('button', { name: 'Save' }).click();
      const missing = row(4).locator('[data-error-for="rules.rules.3"]');
      await missing.waitFor({ state: 'visible' });
      expect(await missing.textContent()).toBe('if.country: give at least one value. then.url: give the URL.');
      expect(await page.evaluate<string>('document.activeElement.getAttribute("aria-label")')).toBe('Rule 4: name');
      await row(4).getByRole('button', { name: 'Remove rule 4' }).click();

      // A value the API refuses: its message beside the rule it names.
      await row(2).getByLabel('Rule 2: country values, comma-separated').fill('US, UK');
      await page.locator('#link-settings').getByRole('button', { name: 'Save' }).click();
      const error = row(2).locator('[data-error-for="rules.rules.1"]');
      await error.waitFor({ state: 'visible' });
      expect(await error.textContent()).toContain('"UK" is not an ISO 3166-1 alpha-2 country code');
      expect((await api(`/api/v1/links/${linkId}`)).payload.rules).toEqual(stored);
      watched.assertClean();
    });

    test('the route test says in words which rule a visit takes, and marks the row', async () => {
      await page.goto(`${base}/links/${linkId}`);
      await page.locator('.rule-row').first().waitFor();
      const tester = page.locator('#route-test');
      await tester.getByLabel('Country').fill('CA');
      await tester.getByLabel('Operating system').selectOption('ios');
      await tester.getByRole('button', { name: 'Test route' }).click();
      const words = page.locator('#route-test-result');
      await words.getByText('Rule 2 \u201cios-us\u201d takes this visit: the visitor is sent to the app, at myapp://promo/1.').waitFor();
      expect(await words.textContent()).toContain('The visit as the rules saw it: country CA, OS ios');
      expect(await words.textContent()).not.toContain('{');
      await row(2).getByText('The last route test took this rule.').waitFor();
      expect(await row(2).getAttribute('class')).toContain('rule-taken');

      await tester.getByLabel('Operating system').selectOption('android');
      await tester.getByLabel('Query string').fill('utm_source=mail');
      await tester.getByRole('button', { name: 'Test route' }).click();
      await until(page, `document.querySelector('#route-test-result').textContent.includes('No rule takes this visit: the visitor is sent to the fallback URL https://web.example.com/fallback')`);
      expect(await page.locator('.rule-taken').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await page.setViewportSize(VIEWPORTS.phone);
      await checkPage(page);
      await screenshot(page, `${backend}-rules-editor-375`);
      await page.setViewportSize(VIEWPORTS.desktop);
      watched.assertClean();
    });

    test('rules the rows cannot show open in the JSON view, and a save keeps them intact', async () => {
      // An empty parameter value ("?ref=" matches) is valid, but a comma-separated box cannot hold it.
      const rules = { version: 1, rules: [{ name: 'empty-ref', if: { params: { ref: [''] }, city: ['Washington, D.C.'] }, then: { url: 'https://ref.example.com/' } }] };
      const made = await api('/api/v1/links', { method: 'POST', json: { kind: 'smart', slug: 'json-only', destination: 'https://shop.example.com/', rules } });
      expect(made.status).toBe(201);
      await page.goto(`${base}/links/${made.payload.id}`);
      await page.getByText('The visual editor cannot show these rules: rule 1:').waitFor();
      expect(await page.locator('.rule-row').count()).toBe(0);
      expect(JSON.parse(await jsonView().inputValue())).toEqual(made.payload.rules);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel('Status').selectOption('paused');
      await saveAndReload();
      const after = await api(`/api/v1/links/${made.payload.id}`);
      expect(after.payload.status).toBe('paused');
      expect(after.payload.rules).toEqual(made.payload.rules);
      watched.assertClean();
    });
  });
}
