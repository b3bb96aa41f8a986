import { describe, expect, test } from 'bun:test';
import { issueApiKey, revokeApiKey } from '../../src/auth/api-keys';
import { html, jsonBlock, WEB_CSP } from '../../src/dashboard/web/html';
import { NAVIGATION } from '../../src/dashboard/web/layout';
import { testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCost } from '../support/facts';
import { insertApp, insertCampaign, insertLink } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { registerAccount } from '../protect/support';

describe('html', () => {
  test('every interpolated value is escaped, nested templates are not escaped twice', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe('<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>');
    expect(html`<ul>${['a<', 'b'].map((item) => html`<li>${item}</li>`)}</ul>`.text).toBe('<ul><li>a&lt;</li><li>b</li></ul>');
    expect(html`${null}${undefined}${false}${0}`.text).toBe('0');
  });

  test('a JSON block cannot close its element', () => {
    const block = jsonBlock('data', { text: '</script><script>alert(1)</script>' }).text;
    expect(block).not.toContain('</script><script>');
    expect(JSON.parse(/>(.*)<\/script>$/.exec(block)![1]!)).toEqual({ text: '</script><script>alert(1)</script>' });
  });
});

for (const backend of backends()) {
  describe(`the web app's pages on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { workers: false });
    const get = (path: string, cookie?: string) => t.request(path, { headers: cookie ? { cookie } : {} });

    test('without a session every page sends the browser to /login; the sign-in pages open', async () => {
      for (const { path } of NAVIGATION.filter((item) => item.path !== '/docs')) {
        const res = await get(path);
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe('/login');
        expectSecurityHeaders(res);
      }
      for (const path of ['/login', '/register']) {
        const res = await get(path);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-security-policy')).toBe(WEB_CSP);
        expect(await res.text()).toContain(`data-api="${path}"`);
      }
    });

    test('signed in: every page answers HTML under the CSP, loading only this origin', async () => {
      const me = await registerAccount(t);
      expect((await get('/login', me.cookie)).headers.get('location')).toBe('/');
      for (const { path, label } of NAVIGATION) {
        const res = await get(path, me.cookie);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(res.headers.get('content-security-policy')).toBe(WEB_CSP);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expectSecurityHeaders(res);
        const page = await res.text();
        expect(page).toContain(`<h1>${label === 'API reference' ? 'API reference' : label}</h1>`);
        // No inline script: only the app's own files, and JSON blocks the browser never runs.
        for (const [tag] of page.matchAll(/<script[^>]*>/g)) expect(tag).toMatch(/src="\/assets\/[a-z]+\.js\?v=[\w-]+"|type="application\/json"/);
        expect(page).not.toMatch(/\sstyle=|\son[a-z]+=/i);
        expect(page).not.toMatch(/\s(?:src|href|action)="(?!\/|#|data:,|https?:\/\/(?:api|track)\.test\.local\/)/);
      }
    });

    test("pages show this organization's data only, as text", async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      await insertLink(db, me.orgId, { slug: 'mine-link', destination: 'https://shop.example.com/?q=<b>bold</b>' });
      const theirs = await insertLink(db, them.orgId, { slug: 'their-link' });
      await insertApp(db, them.orgId);
      const links = await (await get('/links', me.cookie)).text();
      expect(links).toContain('mine-link');
      expect(links).toContain('https://shop.example.com/?q=&lt;b&gt;bold&lt;/b&gt;');
      expect(links).not.toContain('their-link');
      expect(await (await get('/apps', me.cookie)).text()).not.toContain('sk_');
      const foreign = await get(`/links/${theirs.linkId}`, me.cookie);
      expect(foreign.status).toBe(404);
      expect(await foreign.text()).toContain('link not found');
    });

    test('the keys and apps pages show each key\'s rate limit, with forms that set it', async () => {
      const me = await registerAccount(t);
      const limited = await issueApiKey(db, { orgId: me.orgId, name: 'Limited key', rateLimitPerMinute: 1500 });
      const plain = await issueApiKey(db, { orgId: me.orgId, name: 'Plain key' });
      const revoked = await issueApiKey(db, { orgId: me.orgId, name: 'Gone key', rateLimitPerMinute: 5 });
      await revokeApiKey(db, me.orgId, revoked.id);
      const keys = await (await get('/keys', me.cookie)).text();
      expect(keys).toContain('<th scope="col">Rate limit</th>');
      expect(keys).toContain('1,500 a minute');
      expect(keys).toContain('none (per-IP limits only)');
      // The create form takes a limit; each live key has a PATCH form, prefilled with its own.
      expect(keys).toMatch(/<form [^>]*id="new-key"[\s\S]*?name="rate_limit_per_minute"[\s\S]*?<\/form>/);
      expect(keys).toMatch(new RegExp(`<form [^>]*id="key-limit-${limited.id}" data-api="/api/dashboard/keys/${limited.id}" data-method="PATCH"[\\s\\S]*?name="rate_limit_per_minute"[^>]*data-type="number" data-empty="null"[^>]*value="1500"`));
      expect(keys).toContain(`data-api="/api/dashboard/keys/${plain.id}" data-method="PATCH"`);
      expect(keys).not.toContain(`data-api="/api/dashboard/keys/${revoked.id}" data-method="PATCH"`);

      const app = await insertApp(db, me.orgId);
      await db.query('UPDATE apps SET rate_limit_per_minute = 42 WHERE id = $1', [app.appId]);
      const apps = await (await get('/apps', me.cookie)).text();
      expect(apps).toContain('<th scope="col">SDK key rate limit</th>');
      expect(apps).toContain('42 a minute');
      expect(apps).toMatch(/<form [^>]*id="new-app"[\s\S]*?name="rate_limit_per_minute"[\s\S]*?<\/form>/);
      expect(apps).toContain(`data-api="/api/dashboard/apps/${app.appId}" data-method="PATCH"`);
    });

    test('with KEY_RATE_LIMIT set, keys without a limit of their own show the deployment default', async () => {
      const node = await testApp(db, { KEY_RATE_LIMIT: '600' }, { workers: false, mirror: false });
      const me = await registerAccount(node);
      await issueApiKey(db, { orgId: me.orgId, name: 'Plain key' });
      const keys = await (await node.request('/keys', { headers: { cookie: me.cookie } })).text();
      expect(keys).toContain('default: 600 a minute');
      expect(keys).not.toContain('none (per-IP limits only)');
    });

    test('the campaigns page has the pivot of the window asked for; a bad window falls back to the default', async () => {
      const me = await registerAccount(t);
      const { campaignId } = await insertCampaign(db, me.orgId);
      await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [campaignId, 'Autumn <sale>']);
      await insertClick(db, { orgId: me.orgId, campaignId, createdAt: '2026-08-10T10:00:00Z' });
      await insertCost(db, { orgId: me.orgId, campaignId, day: '2026-08-10', spend: 12.5 });
      const page = await (await get('/campaigns?from=2026-08-10&to=2026-08-10', me.cookie)).text();
      expect(page).toContain('Autumn &lt;sale&gt;');
      expect(page).toContain('href="/api/dashboard/export?type=pivot&amp;from=2026-08-10&amp;to=2026-08-10"');
      expect(page).toContain('<td class="num">12.50</td>');
      const fallback = await get('/campaigns?from=2026-13-01', me.cookie);
      expect(fallback.status).toBe(200);
      expect(await fallback.text()).toContain('showing the default');
    });

    test('the invalid-clicks page lists risky clicks of the window and links the CSV', async () => {
      const me = await registerAccount(t);
      await insertClick(db, { orgId: me.orgId, ip: '5.9.77.1', createdAt: new Date(Date.now() - 3_600_000), riskReasons: ['webdriver'] });
      const page = await (await get('/invalid-clicks?days=2', me.cookie)).text();
      expect(page).toContain('5.9.77.1');
      expect(page).toContain('href="/api/protect/export?days=2"');
      expect(page).toContain('Connect Google Ads');
    });

    test('assets are served from this origin with their type, and cached by ETag', async () => {
      for (const [path, type] of [['/assets/app.js', 'text/javascript'], ['/assets/app.css', 'text/css'], ['/assets/uplot.js', 'text/javascript'], ['/assets/uplot.css', 'text/css']]) {
        const res = await get(path!);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toStartWith(type!);
        expectSecurityHeaders(res);
        const etag = res.headers.get('etag')!;
        expect((await t.request(path!, { headers: { 'if-none-match': etag } })).status).toBe(304);
      }
      const icon = await get('/favicon.ico');
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/gif');
    });
  });
}
