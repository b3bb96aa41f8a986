import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertApp, insertLink } from '../support/fixtures';
import { issueApiKey } from '../../src/auth/api-keys';
import { registerAccount } from '../protect/support';

/**
 * The web app's long lists a page at a time (links, apps, keys), the session API's pages, and the
 * smart-link editor: the stored rules or an empty box, the example only behind its button.
 */

const ORIGIN = 'http://api.test.local';
const nextHref = (html: string) => /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? null;
const slugsOf = (html: string) => [...html.matchAll(/<td><a href="\/links\/[^"]+">([^<]+)<\/a><\/td>/g)].map((m) => m[1]!);

for (const backend of backends()) {
  describe(`web app pages on ${backend.name}`, async () => {
    const db = await backend.create();
    // With the mirror: a link's page shows its analytics from it.
    const t = await testApp(db, {}, { workers: false });
    const get = (path: string, cookie: string) => t.request(path, { headers: { cookie, origin: ORIGIN } });

    test('/links shows 100 links a page and "Next page" reaches every one of 250', async () => {
      const me = await registerAccount(t);
      const made = new Set<string>();
      for (let i = 0; i < 250; i++) made.add((await insertLink(db, me.orgId, { slug: `w${i}-${me.orgId.slice(-6).toLowerCase()}` })).slug);
      const seen: string[] = [];
      let path: string | null = '/links';
      let pages = 0;
      while (path) {
        const res = await get(path, me.cookie);
        expect(res.status).toBe(200);
        const html = await res.text();
        seen.push(...slugsOf(html));
        if (pages > 0) expect(html).toContain('<a href="/links">First page</a>');
        path = nextHref(html);
        pages += 1;
      }
      expect(pages).toBe(3);
      expect(seen).toHaveLength(250);
      expect(new Set(seen)).toEqual(made);
    });

    test("a page link with a bad or another organization's cursor is a 400 page, showing nothing of theirs", async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      for (let i = 0; i < 101; i++) await insertLink(db, them.orgId, { slug: `t${i}-${them.orgId.slice(-6).toLowerCase()}` });
      const theirNext = nextHref(await (await get('/links', them.cookie)).text());
      expect(theirNext).not.toBeNull();
      for (const path of [theirNext!, '/links?cursor=garbage', '/apps?cursor=garbage', '/keys?cursor=garbage']) {
        const res = await get(path, me.cookie);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toContain('text/html');
        const html = await res.text();
        expect(html).toContain('First page');
        expect(html).not.toContain(them.orgId.slice(-6).toLowerCase());
      }
    });

    test('/apps and /keys page the same way', async () => {
      const me = await registerAccount(t);
      for (let i = 0; i < 101; i++) {
        await insertApp(db, me.orgId);
        await issueApiKey(db, { orgId: me.orgId, name: `key ${i}` });
      }
      for (const list of ['/apps', '/keys']) {
        const first = await (await get(list, me.cookie)).text();
        const next = nextHref(first);
        expect(next).toStartWith(`${list}?cursor=`);
        const second = await (await get(next!, me.cookie)).text();
        expect(second).toContain(`<a href="${list}">First page</a>`);
        expect(nextHref(second)).toBeNull();
      }
    });

    test('the session API pages links, apps and keys, and refuses a cursor of another list', async () => {
      const me = await registerAccount(t);
      for (let i = 0; i < 3; i++) {
        await insertLink(db, me.orgId);
        await insertApp(db, me.orgId);
        await issueApiKey(db, { orgId: me.orgId, name: `k${i}` });
      }
      for (const list of ['/api/dashboard/links', '/api/dashboard/apps', '/api/dashboard/keys']) {
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const answer = await body(await get(`${list}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, me.cookie));
          ids.push(...answer.data.map((row: { id: string }) => row.id));
          cursor = answer.next_cursor;
        } while (cursor);
        expect(new Set(ids).size).toBe(3);
      }
      const linksCursor = (await body(await get('/api/dashboard/links?limit=1', me.cookie))).next_cursor;
      const refused = await get(`/api/dashboard/keys?cursor=${encodeURIComponent(linksCursor)}`, me.cookie);
      expect(refused.status).toBe(400);
      expect((await body(refused)).error.fieldErrors.cursor).toBeDefined();
    });

    test("a smart link's editor holds its stored rules, or nothing: the example is behind a button", async () => {
      const me = await registerAccount(t);
      const make = async (json: unknown) => body(await t.request('/api/dashboard/links', { method: 'POST', headers: { cookie: me.cookie, origin: ORIGIN }, json }));
      const bare = await make({ kind: 'smart', destination: 'https://web.example.com/' });
      const ruled = await make({ kind: 'smart', destination: 'https://web.example.com/', rules: { version: 1, rules: [{ name: 'de', if: { country: ['DE'] }, then: { url: 'https://de.example.com/' } }] } });

      const bareHtml = await (await get(`/links/${bare.id}`, me.cookie)).text();
      const textarea = /<textarea[^>]*name="rules"[^>]*>([^<]*)<\/textarea>/.exec(bareHtml);
      expect(textarea?.[1]).toBe('');
      expect(bareHtml).toContain('data-send="changed"');
      const button = /<button type="button" class="secondary" data-insert-example="link-settings-rules" data-example="([^"]+)">Insert example<\/button>/.exec(bareHtml);
      expect(button?.[1]).toContain('apps.apple.com');

      const ruledHtml = await (await get(`/links/${ruled.id}`, me.cookie)).text();
      expect(ruledHtml).toContain('de.example.com');
      expect(/<textarea[^>]*name="rules"[^>]*>([^<]*)<\/textarea>/.exec(ruledHtml)?.[1]).not.toContain('apps.apple.com');
    });
  });
}
