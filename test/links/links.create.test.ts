import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign, insertLink, orgWithKey } from '../support/fixtures';
import { auditRows, ISO, recordPublishes, storedLink } from './support';

for (const backend of backends()) {
  describe(`links API, create, on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false });
    const publishes = recordPublishes(t.services.linkChanges);
    const create = (auth: Record<string, string>, json: unknown) => t.request('/api/v1/links', { method: 'POST', headers: auth, json });
    const linkCount = async (orgId: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM links WHERE org_id = $1', [orgId]))[0]!.n;

    describe('POST /api/v1/links', () => {
      test('an empty body makes a tracking link with a generated slug on the tracking host', async () => {
        const { auth, keyId } = await orgWithKey(db);
        const res = await create(auth, {});
        expect(res.status).toBe(201);
        const link = await body(res);
        expect(link.slug).toMatch(/^[A-Za-z0-9]{7}$/);
        expect(link).toMatchObject({ kind: 'tracking', campaign_id: null, destination: null, domain: null, status: 'active', expires_at: null, click_cap: null, rules: null, pass_params: false, preview: null, deep_link_path: null, allowed_landing_hosts: null, domain_status: null, domain_note: null });
        expect(link.url).toBe(`http://track.test.local/c/${link.slug}`);
        expect(link.created_at).toMatch(ISO);
        expect(link.updated_at).toMatch(ISO);
        expect(Object.keys(link).sort()).toEqual(
          ['id', 'slug', 'kind', 'campaign_id', 'destination', 'domain', 'status', 'expires_at', 'click_cap', 'rules', 'pass_params', 'preview', 'deep_link_path', 'allowed_landing_hosts', 'domain_status', 'domain_note', 'url', 'created_at', 'updated_at'].sort(),
        );
        expect(await body(await t.request(`/api/v1/links/${link.id}`, { headers: auth }))).toEqual(link);
        expect(await auditRows(db, keyId)).toMatchObject([{ action: 'create', entity: 'link', entity_id: link.id, api_key_id: keyId }]);
      });

      test('every field is stored and echoed; a smart link on a custom domain answers under /l/', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const { campaignId } = await insertCampaign(db, orgId);
        const rules = [{ if: { os: 'ios' }, then: { url: 'https://apps.example/app' } }, { if: {}, then: { url: 'https://shop.example.com' } }];
        const stored = { version: 1, rules: [{ if: { os: ['ios'] }, then: { url: 'https://apps.example/app' } }, { if: {}, then: { url: 'https://shop.example.com' } }] };
        const preview = { title: 'Spring sale', image: 'https://cdn.example.com/spring.png' };
        const res = await create(auth, {
          slug: 'Spring_Sale-1',
          kind: 'smart',
          campaign_id: campaignId,
          destination: 'https://shop.example.com/sale?utm_source=x',
          domain: 'Go.Example.COM',
          status: 'paused',
          expires_at: '2030-01-02T03:04:05+01:00',
          click_cap: 5000,
          rules,
          pass_params: true,
          preview,
          deep_link_path: '/product/42',
        });
        expect(res.status).toBe(201);
        const link = await body(res);
        expect(link).toMatchObject({
          slug: 'Spring_Sale-1',
          kind: 'smart',
          campaign_id: campaignId,
          destination: 'https://shop.example.com/sale?utm_source=x',
          domain: 'go.example.com',
          status: 'paused',
          expires_at: '2030-01-02T02:04:05.000Z',
          click_cap: 5000,
          rules: stored,
          pass_params: true,
          preview,
          deep_link_path: '/product/42',
          url: 'https://go.example.com/l/Spring_Sale-1',
          domain_status: 'unverified',
        });
        expect(link.domain_note).toContain('links on go.example.com answer 404 until this organization verifies the domain');
        const row = await storedLink(db, link.id);
        expect(row).toMatchObject({ org_id: orgId, domain: 'go.example.com', slug: 'Spring_Sale-1', rules: stored, pass_params: true, preview });
      });

      test('the tracking host named as a domain is the tracking host', async () => {
        const { auth } = await orgWithKey(db);
        const link = await body(await create(auth, { slug: 'hostnamed', domain: 'TRACK.test.local' }));
        expect(link.domain).toBeNull();
        expect(link.url).toBe('http://track.test.local/c/hostnamed');
        expect((await create(auth, { slug: 'hostnamed' })).status).toBe(409);
      });

      test('the same slug may exist once per domain', async () => {
        const { auth } = await orgWithKey(db);
        expect((await create(auth, { slug: 'perdomain' })).status).toBe(201);
        expect((await create(auth, { slug: 'perdomain', domain: 'a.example.com' })).status).toBe(201);
        expect((await create(auth, { slug: 'perdomain', domain: 'b.example.com:8080' })).status).toBe(201);
        expect((await create(auth, { slug: 'PERDOMAIN' })).status).toBe(201);
      });

      test('a taken slug answers 409, writes nothing and announces nothing', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        const existing = await insertLink(db, orgId, { slug: 'taken-slug' });
        const before = await linkCount(orgId);
        await publishes.reset();
        const res = await create(auth, { slug: 'taken-slug', destination: 'https://other.example.com' });
        expect(res.status).toBe(409);
        expect(await body(res)).toEqual({ error: 'slug taken' });
        expect(await linkCount(orgId)).toBe(before);
        expect(await auditRows(db, keyId)).toEqual([]);
        expect((await storedLink(db, existing.linkId))!.destination).toBe('https://shop.example.com/landing');
        await publishes.settle();
        expect(publishes.seen).toEqual([]);
      });

      test('two creates racing for one slug: exactly one wins', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const results = await Promise.all([create(auth, { slug: 'race-slug' }), create(auth, { slug: 'race-slug' }), create(auth, { slug: 'race-slug' })]);
        expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
        expect((await db.query("SELECT id FROM links WHERE slug = 'race-slug'")).length).toBe(1);
        expect(await linkCount(orgId)).toBe(1);
      });

      test('generated slugs are distinct', async () => {
        const { auth } = await orgWithKey(db);
        const slugs = new Set<string>();
        for (let i = 0; i < 40; i++) slugs.add((await body(await create(auth, {}))).slug);
        expect(slugs.size).toBe(40);
      });

      test('unsafe or malformed destinations are 400 field errors, change nothing and announce nothing', async () => {
        const { auth, orgId } = await orgWithKey(db);
        await publishes.reset();
        for (const destination of ['javascript:alert(1)', 'data:text/html,hi', '/relative', 'relative', '//evil.example/x', 'http:evil.example', 'https://', 'https://a b.example', 'ftp://files.example/x', 42]) {
          const res = await create(auth, { destination });
          expect(res.status).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['destination']);
        }
        expect(await linkCount(orgId)).toBe(0);
        await publishes.settle();
        expect(publishes.seen).toEqual([]);
      });

      test('every bad field is named in one 400', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const shapes = await create(auth, { slug: 'no spaces', click_cap: 'many', rules: 'route everything', extra: true });
        expect(shapes.status).toBe(400);
        expect(Object.keys((await body(shapes)).error.fieldErrors).sort()).toEqual(['click_cap', 'extra', 'rules', 'slug']);
        const res = await create(auth, {
          destination: 'javascript:alert(1)',
          domain: 'https://go.example.com/x',
          expires_at: '2030-01-01',
          deep_link_path: 'myapp://product/42',
        });
        expect(res.status).toBe(400);
        const error = (await body(res)).error;
        expect(Object.keys(error.fieldErrors).sort()).toEqual(['deep_link_path', 'destination', 'domain', 'expires_at']);
        expect(error.formErrors).toEqual([]);
        expect(await linkCount(orgId)).toBe(0);
      });

      test('field by field: slug, kind, status, click_cap, expires_at, deep_link_path, campaign_id', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const cases: [Record<string, unknown>, string][] = [
          [{ slug: '' }, 'slug'],
          [{ slug: 'a'.repeat(65) }, 'slug'],
          [{ slug: 'has space' }, 'slug'],
          [{ slug: 'dot.ted' }, 'slug'],
          [{ slug: 'ünï' }, 'slug'],
          [{ slug: 7 }, 'slug'],
          [{ kind: 'qr' }, 'kind'],
          [{ status: 'archived' }, 'status'],
          [{ status: null }, 'status'],
          [{ click_cap: 0 }, 'click_cap'],
          [{ click_cap: 1.5 }, 'click_cap'],
          [{ click_cap: '100' }, 'click_cap'],
          [{ click_cap: 2_147_483_648 }, 'click_cap'],
          [{ expires_at: '2030-02-30T00:00:00Z' }, 'expires_at'],
          [{ expires_at: 1893456000 }, 'expires_at'],
          [{ deep_link_path: '//evil.example/x' }, 'deep_link_path'],
          [{ deep_link_path: 'a'.repeat(513) }, 'deep_link_path'],
          [{ domain: 'localhost' }, 'domain'],
          [{ domain: '' }, 'domain'],
          [{ rules: 5 }, 'rules'],
          [{ rules: [{ if: {}, then: { block: 404 }, blob: 'x'.repeat(70_000) }] }, 'rules.rules.0.blob'],
          [{ pass_params: 'yes' }, 'pass_params'],
          [{ pass_params: null }, 'pass_params'],
          [{ preview: 'Spring sale' }, 'preview'],
          [{ kind: 'smart', preview: { image: 'http://cdn.example.com/a.png' } }, 'preview.image'],
          [{ campaign_id: 5 }, 'campaign_id'],
          [{ campaign_id: 'no-such-campaign' }, 'campaign_id'],
          [{ id: 'chosen-id' }, 'id'],
          [{ destinaton: 'https://typo.example' }, 'destinaton'],
        ];
        for (const [json, field] of cases) {
          const res = await create(auth, json);
          expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual([field]);
        }
        expect(await linkCount(orgId)).toBe(0);
      });

      test('a body that is not a JSON object is 400', async () => {
        const { auth, orgId } = await orgWithKey(db);
        for (const json of [[{ slug: 'x' }], 'slug', 5, null]) {
          const res = await create(auth, json);
          expect(res.status).toBe(400);
          expect((await body(res)).error.formErrors.length).toBeGreaterThan(0);
        }
        const text = await t.request('/api/v1/links', { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: '{"slug":"as-text"}' });
        expect(text.status).toBe(400);
        const broken = await t.request('/api/v1/links', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"slug":' });
        expect(broken.status).toBe(400);
        expect(await linkCount(orgId)).toBe(0);
      });

      test('is announced to the link caches once committed', async () => {
        const { auth } = await orgWithKey(db);
        await publishes.reset();
        const link = await body(await create(auth, { slug: 'announced-create' }));
        expect(publishes.seen).toContain(link.id);
      });
    });
  });
}
