import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { registerAccount } from '../protect/support';

/**
 * GET /links/{id} as HTML: what a tracking link's page has and leaves out beside a smart link's,
 * values escaped, and another organization's link a 404 page showing nothing of it.
 */

const ORIGIN = 'http://api.test.local';

for (const backend of backends()) {
  describe(`the link page on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { workers: false });
    const me = await registerAccount(t);
    const them = await registerAccount(t);
    const make = async (json: unknown) => body(await t.request('/api/dashboard/links', { method: 'POST', headers: { cookie: me.cookie, origin: ORIGIN }, json }));
    const page = async (id: string, cookie = me.cookie) => t.request(`/links/${id}`, { headers: { cookie } });

    test('a tracking link: analytics, settings, delivery and delete; no preview, no parameters, no decisions', async () => {
      const link = await make({ slug: 'plain-one', destination: 'https://shop.example.com/', deep_link_path: '/p/1', allowed_landing_hosts: ['shop.example', '*.brand.example'] });
      await insertClick(db, { orgId: me.orgId, linkId: link.id, country: 'NL', createdAt: new Date(Date.now() - 3_600_000) });
      const res = await page(link.id);
      expect(res.status).toBe(200);
      const html = await res.text();
      for (const text of ['Analytics', 'id="link-countries"', '<td class="mono">NL</td>', 'id="link-delivery"', 'value="/p/1"', 'Delete link', 'data-method="DELETE"', 'data-confirm=']) expect(html).toContain(text);
      expect(/<textarea[^>]*name="allowed_landing_hosts"[^>]*>([^<]*)<\/textarea>/.exec(html)?.[1]).toBe('shop.example\n*.brand.example');
      for (const text of ['Social preview', 'name="pass_params"', 'Smart-link decisions', 'name="rules"']) expect(html).not.toContain(text);
    });

    test('a smart link: the preview and parameters too; stored text is escaped', async () => {
      const link = await make({ kind: 'smart', destination: 'https://shop.example.com/', pass_params: true, preview: { title: '<script>alert(1)</script>' } });
      const html = await (await page(link.id)).text();
      for (const text of ['Social preview', 'name="pass_params"', 'Smart-link decisions', 'name="rules"']) expect(html).toContain(text);
      expect(/<input[^>]*name="pass_params"[^>]*>/.exec(html)?.[0]).toContain(' checked');
      expect(html).not.toContain('<script>alert(1)</script>');
      expect(html).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    });

    test("another organization's link: a 404 page that shows nothing of it", async () => {
      const link = await make({ slug: 'secret-slug-xyz', destination: 'https://private.example.com/' });
      const res = await page(link.id, them.cookie);
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).not.toContain('secret-slug-xyz');
      expect(html).not.toContain('private.example.com');
    });
  });
}
