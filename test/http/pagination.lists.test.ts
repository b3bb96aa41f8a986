import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { newId } from '../../src/shared/ids';
import type { Db } from '../../src/db/db';
import { insertClick } from '../support/clicks';
import { encodeCursor } from '../../src/http/pagination';

/**
 * Cursor pagination over HTTP (docs/management-api.md, "Lists and pages"): every link once,
 * inserts while paging neither repeated nor making old links skipped, bad and foreign cursors
 * refused, and every list of the API answering with next_cursor.
 */

/** `count` links in one statement; created_at is shared by runs of ten so the id breaks ties, and differs in microseconds otherwise. */
async function insertLinks(db: Db, orgId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId());
  await db.query(
    `INSERT INTO links (id, org_id, slug, domain, kind, destination, status, created_at)
     SELECT u.id, $1, 'p' || lower(u.id), '', 'tracking', 'https://shop.example.com/' || u.n, 'active',
            timestamptz '2026-09-01 00:00:00+00' + ((u.n / 10) * interval '1 microsecond')
       FROM unnest($2::text[]) WITH ORDINALITY AS u(id, n)`,
    [orgId, ids],
  );
  return ids;
}

for (const backend of backends()) {
  describe(`cursor pagination on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false });
    const a = await orgWithKey(db, 'Pages A');
    const b = await orgWithKey(db, 'Pages B');
    const get = async (path: string, auth = a.auth) => {
      const res = await t.request(path, { headers: auth });
      return { status: res.status, payload: await body(res) };
    };
    /** Every page of a list from the start; `between` runs after each page. */
    const pageThrough = async (path: string, between: (page: number) => Promise<void> = async () => {}) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const sep = path.includes('?') ? '&' : '?';
        const answer = await get(`${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(answer.status).toBe(200);
        seen.push(...answer.payload.data.map((row: { id: string }) => row.id));
        cursor = answer.payload.next_cursor;
        pages += 1;
        await between(pages);
      } while (cursor !== null);
      return { seen, pages };
    };

    const ids = await insertLinks(db, a.orgId, 509);
    const newestFirst = (await db.query<{ id: string }>('SELECT id FROM links WHERE org_id = $1 ORDER BY created_at DESC, id DESC', [a.orgId])).map((row) => row.id);

    test('509 links paged with limit=100: six pages, every link once, in the order of the whole list', async () => {
      const { seen, pages } = await pageThrough('/api/v1/links?limit=100');
      expect(pages).toBe(6);
      expect(seen).toEqual(newestFirst);
      expect(new Set(seen).size).toBe(509);
      expect(new Set(seen)).toEqual(new Set(ids));
    });

    test('the default page is 100 links; the last page says null', async () => {
      const first = await get('/api/v1/links');
      expect(first.payload.data).toHaveLength(100);
      expect(typeof first.payload.next_cursor).toBe('string');
      const all = await get('/api/v1/links?limit=1000');
      expect(all.payload.data).toHaveLength(509);
      expect(all.payload.next_cursor).toBeNull();
    });

    test('links made while paging are not repeated, and none of those that existed is skipped', async () => {
      const before = new Set(newestFirst);
      const made: string[] = [];
      const { seen } = await pageThrough('/api/v1/links?limit=100', async () => {
        for (let i = 0; i < 3; i++) {
          const res = await t.request('/api/v1/links', { method: 'POST', headers: a.auth, json: { destination: 'https://shop.example.com/new' } });
          expect(res.status).toBe(201);
          made.push((await body(res)).id);
        }
      });
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => before.has(id))).toEqual(newestFirst);
      // Newer than the first page: none of them is on a later page.
      expect(seen.filter((id) => made.includes(id))).toEqual([]);
    });

    test('a malformed cursor is a 400 in the spec shape', async () => {
      for (const cursor of ['x', 'not-a-cursor', Buffer.from('[1,"links","abc","id"]').toString('base64url'), 'a'.repeat(600), '%%%']) {
        const answer = await get(`/api/v1/links?cursor=${encodeURIComponent(cursor)}`);
        expect(answer.status).toBe(400);
        expect(answer.payload.error.fieldErrors.cursor).toEqual([expect.stringContaining('cursor')]);
        expect(answer.payload.error.formErrors).toEqual([]);
      }
    });

    test("another organization's cursor is refused, and gives nothing of theirs", async () => {
      await insertLinks(db, b.orgId, 3);
      const theirs = await get('/api/v1/links?limit=1', b.auth);
      expect(typeof theirs.payload.next_cursor).toBe('string');
      const answer = await get(`/api/v1/links?cursor=${encodeURIComponent(theirs.payload.next_cursor)}`);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.payload)).not.toContain('shop.example.com');
      // Nor does A's own cursor open B's rows to B's key, or the other way round.
      const ours = await get('/api/v1/links?limit=1');
      expect((await get(`/api/v1/links?cursor=${encodeURIComponent(ours.payload.next_cursor)}`, b.auth)).status).toBe(400);
    });

    test("a cursor made by hand is still a 400 when its key does not fit, and never opens another organization's rows", async () => {
      const forge = (list: string, key: string[]) => encodeCursor({ list, orgId: a.orgId }, key);
      for (const [path, cursor] of [
        ['/api/v1/clicks', forge('clicks', ['yesterday', 'x'])],
        ['/api/v1/clicks', forge('clicks', ['2026-09-01T00:00:00.000000Z'])],
        ['/api/v1/subscriptions', forge('subscriptions', ['2026-13-01T00:00:00.000000Z', 'x'])],
        ['/api/v1/fx-rates', forge('fx-rates', ['2026-02-31', 'EUR'])],
        ['/api/v1/links', forge('links', ['not-a-time', 'x'])],
      ] as const) {
        const answer = await get(`${path}?cursor=${encodeURIComponent(cursor)}`);
        expect(answer.status).toBe(400);
        expect(answer.payload.error.fieldErrors.cursor).toBeDefined();
      }
      // A well-formed key is read within the caller's organization only: B's app as the anchor gives A nothing.
      const made = await t.request('/api/v1/apps', { method: 'POST', headers: b.auth, json: { name: 'Theirs', platform: 'android', bundle_id: `com.theirs.${Date.now()}` } });
      expect(made.status).toBe(201);
      const anchored = await get(`/api/v1/apps?cursor=${encodeURIComponent(forge('apps', [((await made.json()) as { id: string }).id]))}`);
      expect(anchored.status).toBe(200);
      expect(anchored.payload).toEqual({ data: [], next_cursor: null });
      const clicks = await get(`/api/v1/clicks?cursor=${encodeURIComponent(forge('clicks', ['2099-01-01T00:00:00.000000Z', 'z']))}`);
      expect(clicks.status).toBe(200);
    });

    test("a cursor of one list is refused by another", async () => {
      const links = await get('/api/v1/links?limit=1');
      const answer = await get(`/api/v1/campaigns?cursor=${encodeURIComponent(links.payload.next_cursor)}`);
      expect(answer.status).toBe(400);
      expect(answer.payload.error.fieldErrors.cursor).toBeDefined();
    });

    test('campaigns and apps page through every row once', async () => {
      for (let i = 0; i < 5; i++) {
        expect((await t.request('/api/v1/campaigns', { method: 'POST', headers: a.auth, json: { name: `C${i}` } })).status).toBe(201);
        expect((await t.request('/api/v1/apps', { method: 'POST', headers: a.auth, json: { name: `A${i}`, platform: 'android' } })).status).toBe(201);
      }
      for (const path of ['/api/v1/campaigns?limit=2', '/api/v1/apps?limit=2']) {
        const { seen, pages } = await pageThrough(path);
        expect(pages).toBe(3);
        expect(new Set(seen).size).toBe(5);
      }
    });

    test('FX rates page by day and currency', async () => {
      const rates = ['EUR', 'GBP', 'JPY'].flatMap((currency) => ['2026-08-01', '2026-08-02'].map((day) => ({ day, currency, rate: 1.5 })));
      const put = await t.request('/api/v1/fx-rates', { method: 'PUT', headers: a.auth, json: { rates } });
      expect(put.status).toBe(200);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const answer = await get(`/api/v1/fx-rates?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(answer.status).toBe(200);
        seen.push(...answer.payload.data.map((row: { day: string; currency: string }) => `${row.day} ${row.currency}`));
        cursor = answer.payload.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['2026-08-02 EUR', '2026-08-02 GBP', '2026-08-02 JPY', '2026-08-01 EUR', '2026-08-01 GBP', '2026-08-01 JPY']);
    });

    test('domains page by name', async () => {
      for (const name of ['c', 'a', 'b']) {
        expect((await t.request('/api/v1/links', { method: 'POST', headers: a.auth, json: { destination: 'https://shop.example.com/', domain: `go-${name}.pages.example.com` } })).status).toBe(201);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const answer = await get(`/api/v1/domains?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(answer.status).toBe(200);
        seen.push(...answer.payload.data.map((row: { domain: string }) => row.domain));
        cursor = answer.payload.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['go-a.pages.example.com', 'go-b.pages.example.com', 'go-c.pages.example.com']);
    });

    test('clicks page with their filters; ties and microseconds neither repeat nor skip a click', async () => {
      const org = await orgWithKey(db, 'Pages clicks');
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) {
        // Five clicks in each second, over two days; every third carries the gclid filtered on.
        const createdAt = `2026-09-0${1 + (i % 2)}T10:00:0${Math.floor(i / 5)}Z`;
        ids.push(await insertClick(db, { orgId: org.orgId, createdAt, gclid: i % 3 === 0 ? 'G-PAGE' : null }));
      }
      // Some clicks a microsecond later than the others of their second: a cursor rounded to milliseconds would lose them.
      await db.query("UPDATE clicks SET created_at = created_at + interval '1 microsecond' WHERE org_id = $1 AND id = ANY($2::text[])", [org.orgId, ids.filter((_, i) => i % 4 === 0)]);
      const pages = async (query: string) => {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const res = await t.request(`/api/v1/clicks?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: org.auth });
          expect(res.status).toBe(200);
          const answer = await body(res);
          seen.push(...answer.data.map((click: { id: string }) => click.id));
          cursor = answer.next_cursor;
        } while (cursor);
        return seen;
      };
      const whole = (await body(await t.request('/api/v1/clicks?limit=1000', { headers: org.auth }))).data.map((click: { id: string }) => click.id);
      expect(whole).toHaveLength(25);
      expect(await pages('limit=4')).toEqual(whole);
      const filtered = (await body(await t.request('/api/v1/clicks?limit=1000&gclid=G-PAGE&since=2026-09-02T00:00:00Z', { headers: org.auth }))).data.map((click: { id: string }) => click.id);
      expect(filtered.length).toBeGreaterThan(2);
      expect(await pages('limit=2&gclid=G-PAGE&since=2026-09-02T00:00:00Z')).toEqual(filtered);
    });

    const LISTS = [
      '/api/v1/links',
      '/api/v1/campaigns',
      '/api/v1/apps',
      '/api/v1/conversions',
      '/api/v1/clicks',
      '/api/v1/postback-destinations',
      '/api/v1/postback-deliveries',
      '/api/v1/tv-airings',
      '/api/v1/skan-postbacks',
      '/api/v1/subscriptions',
      '/api/v1/domains',
      '/api/v1/fx-rates',
    ];
    test('the OpenAPI document shows `cursor` on every list and `next_cursor` in its answer', async () => {
      const document = await body(await t.request('/api/openapi.json'));
      for (const path of [...LISTS, '/api/dashboard/links', '/api/dashboard/apps', '/api/dashboard/keys']) {
        const operation = document.paths[path].get;
        const cursor = operation.parameters.find((p: { name: string }) => p.name === 'cursor');
        expect(cursor).toMatchObject({ in: 'query', required: false, schema: { type: 'string' } });
        expect(operation.parameters.find((p: { name: string }) => p.name === 'limit')).toBeDefined();
        const schema = operation.responses['200'].content['application/json'].schema;
        expect(JSON.stringify(schema.properties.next_cursor)).toContain('null');
        expect(schema.properties.data.type).toBe('array');
      }
    });

    for (const path of LISTS) {
      test(`${path}: a page answers next_cursor, a bad cursor is a 400 on cursor`, async () => {
        const ok = await get(`${path}?limit=1`);
        expect(ok.status).toBe(200);
        expect(Array.isArray(ok.payload.data)).toBe(true);
        expect('next_cursor' in ok.payload).toBe(true);
        const bad = await get(`${path}?cursor=bad`);
        expect(bad.status).toBe(400);
        expect(bad.payload.error.fieldErrors.cursor).toBeDefined();
      });
    }
  });
}
