import { describe, expect, test } from 'bun:test';
import { testApp, TEST_TRACKING_URL } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, insertLink } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { decodeQrPng } from '../support/qr-decode';
import { registerAccount } from '../protect/support';

/** The links page's search, filters, order and clicks per row, and the QR downloads (docs/dashboard.md, "Links"). */

const nextHref = (html: string) => /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? null;
const slugsOf = (html: string) => [...html.matchAll(/<td><a href="\/links\/[^"]+">([^<]+)<\/a><\/td>/g)].map((m) => m[1]!);
/** The two click cells of a row, by its slug. */
const clicksOf = (html: string, slug: string) => {
  const row = html.split('<tr>').find((cells) => cells.includes(`>${slug}</a></td>`))!;
  return [...row.matchAll(/<td class="num">(\d+)<\/td>/g)].map((m) => Number(m[1]));
};

for (const backend of backends()) {
  describe(`the links page on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { workers: false });
    const get = (path: string, cookie?: string) => t.request(path, { headers: cookie ? { cookie } : {} });
    const me = await registerAccount(t);
    const them = await registerAccount(t);
    const { campaignId } = await insertCampaign(db, me.orgId);
    const tag = me.orgId.slice(-6).toLowerCase();
    for (let i = 0; i < 150; i++) await insertLink(db, me.orgId, { slug: `p${String(i).padStart(3, '0')}-${tag}`, kind: i % 5 === 0 ? 'tracking' : 'smart', campaignId: i % 10 === 0 ? campaignId : undefined });
    const custom = await insertLink(db, me.orgId, { slug: `custom-${tag}`, domain: 'go.example.com', destination: 'https://shop.example.com/boots' });
    const theirs = await insertLink(db, them.orgId, { slug: `p001-theirs`, kind: 'smart' });

    test('search, filters and order narrow the rows, and "Next page" keeps them', async () => {
      const seen: string[] = [];
      let path: string | null = '/links?q=&kind=smart&status=&campaign_id=&domain=&sort=slug';
      let pages = 0;
      while (path) {
        const html = await (await get(path, me.cookie)).text();
        seen.push(...slugsOf(html));
        path = nextHref(html);
        pages += 1;
        if (path) expect(path).toMatch(/^\/links\?kind=smart&sort=slug&cursor=/);
      }
      expect(pages).toBe(2);
      const smart = Array.from({ length: 150 }, (_, i) => i).filter((i) => i % 5 !== 0).map((i) => `p${String(i).padStart(3, '0')}-${tag}`);
      expect(seen).toEqual(smart);
      expect(slugsOf(await (await get('/links?sort=-slug', me.cookie)).text())[0]).toBe(`p149-${tag}`);
      expect(slugsOf(await (await get(`/links?campaign_id=${campaignId}&sort=created_at`, me.cookie)).text())).toHaveLength(15);
      expect(slugsOf(await (await get('/links?q=BOOTS', me.cookie)).text())).toEqual([`custom-${tag}`]);
      expect(slugsOf(await (await get('/links?domain=go.example.com', me.cookie)).text())).toEqual([`custom-${tag}`]);
      const onTrackingHost = slugsOf(await (await get(`/links?domain=${new URL(TEST_TRACKING_URL).host}&q=p11`, me.cookie)).text());
      expect(onTrackingHost.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p11${i}-${tag}`));
      const none = await (await get('/links?q=nothing-like-this', me.cookie)).text();
      expect(slugsOf(none)).toEqual([]);
      expect(none).toContain('No link matches.');
    });

    test('the filter form shows what is applied; a value no choice has is "any"', async () => {
      const html = await (await get('/links?q=%3Cb%3E&kind=bogus&sort=slug', me.cookie)).text();
      expect(html).toContain('value="&lt;b&gt;"');
      expect(html).toMatch(/<option value="slug" selected>/);
      expect(html).toMatch(/<option value="" selected>Any kind<\/option>/);
      expect(html).toContain('<a href="/links">Clear</a>');
    });

    test("another organization's links are never listed, searched or offered as a domain", async () => {
      const html = await (await get('/links?q=theirs&kind=smart', me.cookie)).text();
      expect(slugsOf(html)).toEqual([]);
      expect(html).not.toContain('p001-theirs');
      expect(await (await get('/links?domain=go.example.com', them.cookie)).text()).not.toContain(`custom-${tag}`);
    });

    test('each row shows its clicks of the last 24 hours and 30 days, bots left out', async () => {
      const now = Date.now();
      for (const hoursAgo of [1, 2, 30, 24 * 20]) await insertClick(db, { orgId: me.orgId, linkId: custom.linkId, createdAt: new Date(now - hoursAgo * 3_600_000) });
      await insertClick(db, { orgId: me.orgId, linkId: custom.linkId, createdAt: new Date(now - 3_600_000), dropReason: 'bot' });
      await insertClick(db, { orgId: me.orgId, linkId: custom.linkId, createdAt: new Date(now - 40 * 86_400_000) });
      await t.services.mirror.catchUp();
      const html = await (await get('/links?q=custom', me.cookie)).text();
      expect(clicksOf(html, `custom-${tag}`)).toEqual([2, 4]);
      expect(clicksOf(await (await get('/links?sort=slug', me.cookie)).text(), `p000-${tag}`)).toEqual([0, 0]);
    });

    test('every row has a copy button for its short URL and QR downloads', async () => {
      const html = await (await get('/links?q=custom', me.cookie)).text();
      expect(html).toContain(`data-copy="https://go.example.com/c/custom-${tag}"`);
      expect(html).toContain(`href="/links/${custom.linkId}/qr.svg" download="custom-${tag}-qr.svg"`);
      expect(html).toContain(`href="/links/${custom.linkId}/qr.png" download="custom-${tag}-qr.png"`);
    });

    test("the QR downloads hold the short URL; another organization's link or no session gets none", async () => {
      const png = await get(`/links/${custom.linkId}/qr.png`, me.cookie);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(png.headers.get('content-disposition')).toBe(`attachment; filename="custom-${tag}-qr.png"`);
      expectSecurityHeaders(png);
      expect(decodeQrPng(new Uint8Array(await png.arrayBuffer()))).toBe(`https://go.example.com/c/custom-${tag}`);

      const svg = await get(`/links/${custom.linkId}/qr.svg`, me.cookie);
      expect(svg.status).toBe(200);
      expect(svg.headers.get('content-type')).toBe('image/svg+xml');
      expect(svg.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(await svg.text()).toMatch(/^<svg [^>]*viewBox/);

      for (const format of ['svg', 'png']) {
        const foreign = await get(`/links/${theirs.linkId}/qr.${format}`, me.cookie);
        expect(foreign.status).toBe(404);
        expect(foreign.headers.get('content-type')).toContain('text/html');
        const anonymous = await get(`/links/${custom.linkId}/qr.${format}`);
        expect(anonymous.status).toBe(302);
        expect(anonymous.headers.get('location')).toBe('/login');
      }
    });
  });
}
