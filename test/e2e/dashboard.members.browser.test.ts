import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { BrowserContext, Page } from 'playwright-core';
import { VIEWPORTS, watch, type Watched } from '../support/browser';
import { hashedDeviceId } from '../support/sdk-fixtures';
import { BROWSER_BACKENDS, checkPage, webAppInBrowser } from '../support/web-app-browser';

/**
 * Members, roles and the audit log in the browser, with the apps and keys pages' new controls:
 * an owner invites, the invitee joins from the link in a fresh browser as an analyst, sees no
 * form and is refused a write; the owner changes the role; the audit page lists it all.
 */

setDefaultTimeout(300_000);
const STEP_MS = 20_000;
const PASSWORD = 'correct horse battery';
/** Controls that write, as the analyst's pages must not show them (their own account's aside). */
const VISIBLE_WRITES =
  "[...document.querySelectorAll('[data-api]')].filter((e) => !['/logout', '/api/dashboard/password', '/api/dashboard/sessions/revoke-all', '/api/dashboard/route-test'].includes(e.getAttribute('data-api')) && e.getClientRects().length > 0).map((e) => e.getAttribute('data-api'))";

for (const backend of BROWSER_BACKENDS) {
  describe(`members, roles, audit, apps and keys in the browser on ${backend}`, async () => {
    const { base, browser } = await webAppInBrowser(backend, { RATE_LIMIT: 'off' });
    const owner: BrowserContext = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await owner.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const ownerWatch: Watched = watch(owner);
    const page: Page = await owner.newPage();
    page.setDefaultTimeout(STEP_MS);
    page.on('dialog', (dialog) => void dialog.accept());
    const invitee = await browser.newContext({ viewport: VIEWPORTS.phone });
    // The refusals the test provokes: the analyst's write, and the used link opened again.
    const inviteeWatch = watch(invitee, { expectedStatus: (url, status) => (status === 403 && url.endsWith('/api/dashboard/apps')) || (status === 404 && url.includes('/invite/')) });
    const other: Page = await invitee.newPage();
    other.setDefaultTimeout(STEP_MS);
    const ownerEmail = `owner-${Date.now()}@example.com`;
    const analystEmail = `analyst-${Date.now()}@example.com`;
    const install = (sdkKey: string) => fetch(`${base}/api/sdk/v1/install`, { method: 'POST', headers: { 'x-sdk-key': sdkKey, 'content-type': 'application/json' }, body: JSON.stringify({ device_id: hashedDeviceId(), platform: 'ios' }) });
    /** Marks the page, so a check can tell an update in place from a reload. */
    const mark = () => page.evaluate('window.notReloaded = true');
    const stillMarked = () => page.evaluate<boolean>('window.notReloaded === true');

    test('the owner signs up; a new API key joins the list without a reload and copies', async () => {
      await page.goto(`${base}/register`);
      await page.getByLabel('Organization').fill('Acme Team');
      await page.getByLabel('Email').fill(ownerEmail);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${base}/`);
      await page.goto(`${base}/keys`);
      await expect(page.locator('#keys-list').textContent()).resolves.toContain('No keys yet');
      await mark();
      await page.getByLabel('Name').fill('Warehouse sync');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = page.locator('#new-key-value');
      await key.waitFor({ state: 'visible' });
      const apiKey = (await key.textContent()) ?? '';
      expect(apiKey).toMatch(/^svc_live_/);
      await page.locator('#keys-list tr', { hasText: 'Warehouse sync' }).waitFor();
      expect(await page.locator('#keys-list tr', { hasText: 'Warehouse sync' }).textContent()).toContain(apiKey.slice(0, 12));
      expect(await stillMarked()).toBe(true);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied.').waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(apiKey);
      await checkPage(page);
      ownerWatch.assertClean();
    });

    test('apps: edit, rotate the SDK key (the old one refused at once), delete', async () => {
      await page.goto(`${base}/apps`);
      await page.locator('#new-app-name').fill('Shop');
      const created = page.waitForEvent('load');
      await page.getByRole('button', { name: 'Create app' }).click();
      await created;
      const row = page.locator('#apps-list tr', { hasText: 'Shop' });
      const oldKey = (await row.locator('code').first().textContent()) ?? '';
      expect(oldKey).toMatch(/^sk_/);
      expect((await install(oldKey)).status).toBe(201);

      await row.getByText('Edit').click();
      await row.getByLabel('Name').fill('Shop Deluxe');
      const saved = page.waitForEvent('load');
      await row.getByRole('button', { name: 'Save' }).click();
      await saved;
      const edited = page.locator('#apps-list tr', { hasText: 'Shop Deluxe' });
      await edited.waitFor();

      await mark();
      await edited.getByRole('button', { name: 'Rotate SDK key of Shop Deluxe' }).click();
      const shown = page.locator('#rotated-sdk-key');
      await shown.waitFor({ state: 'visible' });
      const newKey = (await shown.textContent()) ?? '';
      expect(newKey).toMatch(/^sk_[A-Za-z0-9]{32}$/);
      expect(newKey).not.toBe(oldKey);
      await page.locator('#apps-list code', { hasText: newKey }).waitFor();
      expect(await stillMarked()).toBe(true);
      expect((await install(oldKey)).status).toBe(401);
      expect((await install(newKey)).status).toBe(201);
      await checkPage(page);

      await page.goto(`${base}/apps`);
      await page.locator('#new-app-name').fill('Old game');
      const again = page.waitForEvent('load');
      await page.getByRole('button', { name: 'Create app' }).click();
      await again;
      const doomed = page.locator('#apps-list tr', { hasText: 'Old game' });
      const doomedKey = (await doomed.locator('code').first().textContent()) ?? '';
      const deleted = page.waitForEvent('load');
      await doomed.getByRole('button', { name: 'Delete Old game' }).click();
      await deleted;
      expect(await page.locator('#apps-list').textContent()).not.toContain('Old game');
      expect((await install(doomedKey)).status).toBe(401);
      ownerWatch.assertClean();
    });

    let inviteUrl = '';
    test('the owner invites an analyst: the link is shown once and the open invites list updates', async () => {
      await page.goto(`${base}/members`);
      await expect(page.locator('#invites-list').textContent()).resolves.toContain('No open invites');
      await mark();
      await page.getByLabel('Email').fill(analystEmail);
      await page.getByLabel('Role').first().selectOption('analyst');
      await page.getByRole('button', { name: 'Create invite link' }).click();
      const link = page.locator('#invite-url');
      await link.waitFor({ state: 'visible' });
      inviteUrl = (await link.textContent()) ?? '';
      expect(inviteUrl).toStartWith(`${base}/invite/`);
      await page.locator('#invites-list tr', { hasText: analystEmail }).waitFor();
      expect(await stillMarked()).toBe(true);
      await checkPage(page);
      ownerWatch.assertClean();
    });

    test('the invitee opens the link in a fresh browser, sets a password and joins as an analyst: no forms, a write refused', async () => {
      await other.goto(inviteUrl);
      expect(await other.locator('h1').textContent()).toBe('Join Acme Team');
      await other.getByLabel('Choose a password').fill(PASSWORD);
      await other.getByRole('button', { name: 'Create account and join' }).click();
      await other.waitForURL(`${base}/`);
      for (const path of ['/apps', '/keys', '/links', '/campaigns', '/members', '/settings']) {
        await other.goto(`${base}${path}`);
        await other.getByText('You have read-only access').waitFor();
        expect([path, await other.evaluate<string[]>(VISIBLE_WRITES)]).toEqual([path, []]);
        await checkPage(other);
      }
      expect(await other.getByRole('button', { name: 'Create invite link' }).count()).toBe(0);
      const refused = await other.evaluate<{ status: number; body: unknown }>(
        "fetch('/api/dashboard/apps', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Sneaky', platform: 'ios' }) }).then(async (r) => ({ status: r.status, body: await r.json() }))",
      );
      expect(refused).toEqual({ status: 403, body: { error: 'read-only role' } });
      // The link is used up.
      await other.goto(inviteUrl);
      expect(await other.locator('h1').textContent()).toBe('Invite not valid');
      inviteeWatch.assertClean();
    });

    test('the owner makes the analyst an admin: the forms appear on their next page', async () => {
      await page.goto(`${base}/members`);
      const row = page.locator('tr', { hasText: analystEmail });
      await row.locator('select[name=role]').selectOption('admin');
      const saved = page.waitForEvent('load');
      await row.getByRole('button', { name: 'Change role' }).click();
      await saved;
      await other.goto(`${base}/apps`);
      await other.getByRole('button', { name: 'Create app' }).waitFor();
      expect(await other.getByText('You have read-only access').count()).toBe(0);
      ownerWatch.assertClean();
    });

    test('the audit page lists the invite, the join and the role change, newest first, with who did each', async () => {
      await page.goto(`${base}/audit`);
      const rows = await page.locator('tbody tr').allTextContents();
      const member = rows.filter((text) => text.includes('member'));
      expect(member.length).toBe(3);
      expect(member[0]).toContain('update');
      expect(member[0]).toContain(ownerEmail);
      expect(member[1]).toContain('join');
      expect(member[1]).toContain(analystEmail);
      expect(member[2]).toContain('invite');
      expect(member[2]).toContain(ownerEmail);
      expect(rows.some((text) => text.includes('rotate') && text.includes('sdk_key'))).toBe(true);
      expect(rows.some((text) => text.includes('delete') && text.includes('Old game'))).toBe(true);
      await checkPage(page);
      ownerWatch.assertClean();
    });
  });
}
