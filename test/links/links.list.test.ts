import { describe, expect, test } from 'bun:test';
import type { Db } from '../../src/db/db';
import { body, testApp, TEST_TRACKING_URL, type TestApp } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign, insertLink, orgWithKey } from '../support/fixtures';

/** GET /api/v1/links's optional search, filters and orders (docs/links-api.md), each paged by cursor. */

type Org = Awaited<ReturnType<typeof orgWithKey>>;

async function seed(db: Db, org: Org, tag: string) {
  const { campaignId } = await insertCampaign(db, org.orgId);
  await db.query('UPDATE campaigns SET name = $2 WHERE id = $1', [campaignId, `Winter ${tag} push`]);
  const made = [
    await insertLink(db, org.orgId, { slug: `${tag}-alpha`, destination: 'https://shop.example.com/shoes' }),
    await insertLink(db, org.orgId, { slug: `${tag}-bravo`, destination: 'https://shop.example.com/hats', kind: 'smart', status: 'paused' }),
    await insertLink(db, org.orgId, { slug: `${tag}-charlie`, destination: 'https://blog.example.com/100%_off', campaignId }),
    await insertLink(db, org.orgId, { slug: `${tag}-delta`, destination: 'https://shop.example.com/socks', domain: `go.${tag}.example.com` }),
    await insertLink(db, org.orgId, { slug: `${tag}-echo`, destination: 'https://shop.example.com/ties', kind: 'smart' }),
  ];
  // Distinct creation times, oldest first, so the orders by time are known.
  for (const [i, link] of made.entries()) await db.query("UPDATE links SET created_at = now() - make_interval(mins => $2) WHERE id = $1", [link.linkId, 100 - i]);
  await db.query(`UPDATE links SET preview = '{"title":"Spring Catalogue"}'::jsonb WHERE id = $1`, [made[4]!.linkId]);
  return { campaignId, slugs: made.map((link) => link.slug) };
}

/** Every slug of the list, reading page after page of `limit` rows. */
async function allPages(t: TestApp, org: Org, query: string, limit = 2): Promise<string[]> {
  const slugs: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await t.request(`/api/v1/links?limit=${limit}${query ? `&${query}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: org.auth });
    expect(res.status).toBe(200);
    const page = await body(res);
    slugs.push(...page.data.map((link: { slug: string }) => link.slug));
    cursor = page.next_cursor;
  } while (cursor);
  return slugs;
}

for (const backend of backends()) {
  describe(`GET /api/v1/links search, filters and order on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false });
    const a = await orgWithKey(db, 'A');
    const b = await orgWithKey(db, 'B');
    const mine = await seed(db, a, 'a');
    const theirs = await seed(db, b, 'b');
    const [alpha, bravo, charlie, delta, echo] = mine.slugs as [string, string, string, string, string];

    test('without parameters: newest first, as before', async () => {
      expect(await allPages(t, a, '')).toEqual([echo, delta, charlie, bravo, alpha]);
    });

    test('each order, page after page', async () => {
      expect(await allPages(t, a, 'sort=-created_at')).toEqual([echo, delta, charlie, bravo, alpha]);
      expect(await allPages(t, a, 'sort=created_at')).toEqual([alpha, bravo, charlie, delta, echo]);
      expect(await allPages(t, a, 'sort=slug')).toEqual([alpha, bravo, charlie, delta, echo]);
      expect(await allPages(t, a, 'sort=-slug')).toEqual([echo, delta, charlie, bravo, alpha]);
    });

    test('the last link of a page deleted before the next is asked for: the next page still follows, in every order', async () => {
      const c = await orgWithKey(db, 'C');
      for (const [i, sort] of ['-created_at', 'created_at', 'slug', '-slug'].entries()) {
        const { slugs } = await seed(db, c, `c${i}`);
        const ordered = (await allPages(t, c, `sort=${sort}`, 100)).filter((slug) => slugs.includes(slug));
        const first = await body(await t.request(`/api/v1/links?limit=2&sort=${sort}&q=${encodeURIComponent(slugs[0]!.split('-')[0]!)}-`, { headers: c.auth }));
        expect(first.data.map((link: { slug: string }) => link.slug)).toEqual(ordered.slice(0, 2));
        const deleted = await t.request(`/api/v1/links/${first.data[1].id}`, { method: 'DELETE', headers: c.auth });
        expect(deleted.status).toBe(200);
        const next = await body(await t.request(`/api/v1/links?limit=2&sort=${sort}&q=${encodeURIComponent(slugs[0]!.split('-')[0]!)}-&cursor=${encodeURIComponent(first.next_cursor)}`, { headers: c.auth }));
        expect({ sort, next: next.data.map((link: { slug: string }) => link.slug) }).toEqual({ sort, next: ordered.slice(2, 4) });
      }
    });

    test('search matches the slug, the destination, the preview title and the campaign name, in any case', async () => {
      expect(await allPages(t, a, 'q=BRAVO')).toEqual([bravo]);
      expect(await allPages(t, a, 'q=socks')).toEqual([delta]);
      expect(await allPages(t, a, 'q=spring%20catalogue')).toEqual([echo]);
      expect(await allPages(t, a, 'q=winter')).toEqual([charlie]);
      expect(await allPages(t, a, 'q=shop.example.com', 1)).toEqual([echo, delta, bravo, alpha]);
    });

    test('% and _ in a search are the characters themselves, not patterns', async () => {
      expect(await allPages(t, a, 'q=100%25_off')).toEqual([charlie]);
      expect(await allPages(t, a, 'q=%25')).toEqual([charlie]);
      expect(await allPages(t, a, 'q=a_')).toEqual([]);
    });

    test('filters by kind, status, campaign and domain, together with search and order', async () => {
      expect(await allPages(t, a, 'kind=smart')).toEqual([echo, bravo]);
      expect(await allPages(t, a, 'kind=tracking&sort=slug')).toEqual([alpha, charlie, delta]);
      expect(await allPages(t, a, 'status=paused')).toEqual([bravo]);
      expect(await allPages(t, a, `campaign_id=${mine.campaignId}`)).toEqual([charlie]);
      expect(await allPages(t, a, 'domain=GO.a.example.com')).toEqual([delta]);
      expect(await allPages(t, a, `domain=${new URL(TEST_TRACKING_URL).host}&sort=-slug`, 1)).toEqual([echo, charlie, bravo, alpha]);
      expect(await allPages(t, a, 'kind=smart&status=active&q=spring')).toEqual([echo]);
    });

    test("another organization's links are never shown, whatever is asked", async () => {
      expect(await allPages(t, a, 'q=b-')).toEqual([]);
      expect(await allPages(t, a, `campaign_id=${theirs.campaignId}`)).toEqual([]);
      expect(await allPages(t, a, 'domain=go.b.example.com')).toEqual([]);
      expect(await allPages(t, a, 'q=winter%20b')).toEqual([]);
      expect(await allPages(t, b, 'sort=slug')).toEqual(theirs.slugs);
    });

    test('bad values answer 400 in the spec shape, naming the parameter', async () => {
      const cases: [string, string][] = [
        ['kind=link', 'kind'],
        ['status=archived', 'status'],
        ['sort=clicks', 'sort'],
        ['q=', 'q'],
        [`q=${'x'.repeat(201)}`, 'q'],
        ['campaign_id=', 'campaign_id'],
        ['domain=', 'domain'],
      ];
      for (const [query, name] of cases) {
        const res = await t.request(`/api/v1/links?${query}`, { headers: a.auth });
        expect(res.status).toBe(400);
        const answer = await body(res);
        expect(answer.error.formErrors).toEqual([]);
        expect(Object.keys(answer.error.fieldErrors)).toEqual([name]);
      }
    });

    test("a cursor of one order is refused by another, and another organization's cursor by the list", async () => {
      const page = await body(await t.request('/api/v1/links?limit=1&sort=slug', { headers: a.auth }));
      const refused = await t.request(`/api/v1/links?limit=1&sort=-slug&cursor=${page.next_cursor}`, { headers: a.auth });
      expect(refused.status).toBe(400);
      expect(Object.keys((await body(refused)).error.fieldErrors)).toEqual(['cursor']);
      const foreign = await t.request(`/api/v1/links?limit=1&sort=slug&cursor=${page.next_cursor}`, { headers: b.auth });
      expect(foreign.status).toBe(400);
      // The same order with a filter added goes on after the same link.
      const filtered = await body(await t.request(`/api/v1/links?sort=slug&kind=smart&cursor=${page.next_cursor}`, { headers: a.auth }));
      expect(filtered.data.map((link: { slug: string }) => link.slug)).toEqual([bravo, echo]);
    });
  });
}
