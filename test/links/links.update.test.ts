import { describe, expect, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { auditRows, recordPublishes, storedLink } from './support';

for (const backend of backends()) {
  describe(`links API, read, update and auth, on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false });
    const publishes = recordPublishes(t.services.linkChanges);
    const create = (auth: Record<string, string>, json: unknown) => t.request('/api/v1/links', { method: 'POST', headers: auth, json });
    const patch = (auth: Record<string, string>, id: string, json: unknown) => t.request(`/api/v1/links/${id}`, { method: 'PATCH', headers: auth, json });

    describe('GET /api/v1/links', () => {
      test('lists the organization links newest first, with a limit', async () => {
        const { auth } = await orgWithKey(db);
        const ids = [];
        for (const slug of ['list-1', 'list-2', 'list-3']) ids.push((await body(await create(auth, { slug }))).id);
        const all = await body(await t.request('/api/v1/links', { headers: auth }));
        expect(all.data.map((l: { id: string }) => l.id)).toEqual(ids.toReversed());
        expect(all.data[0].url).toBe('http://track.test.local/c/list-3');
        const two = await body(await t.request('/api/v1/links?limit=2', { headers: auth }));
        expect(two.data.map((l: { id: string }) => l.id)).toEqual(ids.toReversed().slice(0, 2));
      });

      test('limit outside 1 to 1000 is 400', async () => {
        const { auth } = await orgWithKey(db);
        for (const limit of ['0', '1001', 'abc', '1.5']) {
          const res = await t.request(`/api/v1/links?limit=${limit}`, { headers: auth });
          expect(res.status).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['limit']);
        }
      });
    });

    describe('GET /api/v1/links/{id}', () => {
      test('an unknown id is 404 link not found', async () => {
        const { auth } = await orgWithKey(db);
        const res = await t.request('/api/v1/links/01HZZZZZZZZZZZZZZZZZZZZZZZ', { headers: auth });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'link not found' });
      });
    });

    describe('PATCH /api/v1/links/{id}', () => {
      test('replaces present fields, keeps absent ones, and clears with null', async () => {
        const { auth, keyId } = await orgWithKey(db);
        const created = await body(
          await create(auth, { slug: 'patch-me', kind: 'smart', destination: 'https://a.example.com', click_cap: 10, rules: [{ if: {}, then: { block: 410 } }], deep_link_path: 'p/1', expires_at: '2031-01-01T00:00:00Z' }),
        );
        const rules = { version: 1, rules: [{ if: { country: ['DE'] }, then: { url: 'https://de.example.com' } }] };
        const res = await patch(auth, created.id, { status: 'paused', destination: 'https://b.example.com/x', click_cap: null, rules });
        expect(res.status).toBe(200);
        const updated = await body(res);
        expect(updated).toMatchObject({
          id: created.id,
          slug: 'patch-me',
          kind: 'smart',
          status: 'paused',
          destination: 'https://b.example.com/x',
          click_cap: null,
          rules,
          deep_link_path: 'p/1',
          expires_at: '2031-01-01T00:00:00.000Z',
          created_at: created.created_at,
        });
        expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
        const cleared = await body(await patch(auth, created.id, { expires_at: null, deep_link_path: null, destination: null, rules: null, status: 'active' }));
        expect(cleared).toMatchObject({ expires_at: null, deep_link_path: null, destination: null, rules: null, status: 'active' });
        expect(await body(await t.request(`/api/v1/links/${created.id}`, { headers: auth }))).toEqual(cleared);
        expect((await auditRows(db, keyId)).map((a) => [a.action, a.entity, a.entity_id])).toEqual([
          ['create', 'link', created.id],
          ['update', 'link', created.id],
          ['update', 'link', created.id],
        ]);
      });

      test('moves a link between the tracking host and custom domains', async () => {
        const { auth } = await orgWithKey(db);
        const link = await body(await create(auth, { slug: 'mover' }));
        const moved = await body(await patch(auth, link.id, { domain: 'Links.Example.org' }));
        expect(moved).toMatchObject({ domain: 'links.example.org', url: 'https://links.example.org/c/mover' });
        const back = await body(await patch(auth, link.id, { domain: null }));
        expect(back).toMatchObject({ domain: null, url: 'http://track.test.local/c/mover' });
      });

      test('moving to a domain where the slug is taken is 409 and changes nothing', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        await body(await create(auth, { slug: 'clash', domain: 'clash.example.com' }));
        const { linkId } = await insertLink(db, orgId, { slug: 'clash' });
        const before = await storedLink(db, linkId);
        const audits = (await auditRows(db, keyId)).length;
        await publishes.reset();
        const res = await patch(auth, linkId, { domain: 'clash.example.com', status: 'paused' });
        expect(res.status).toBe(409);
        expect(await body(res)).toEqual({ error: 'slug taken' });
        expect(await storedLink(db, linkId)).toEqual(before);
        expect((await auditRows(db, keyId)).length).toBe(audits);
        await publishes.settle();
        expect(publishes.seen).toEqual([]);
      });

      test('bad input is 400 and changes nothing', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const { linkId } = await insertLink(db, orgId, { slug: 'stay-same' });
        const before = await storedLink(db, linkId);
        await publishes.reset();
        const cases: [unknown, string | null][] = [
          [{}, null],
          [{ destination: 'javascript:alert(1)' }, 'destination'],
          [{ status: 'deleted' }, 'status'],
          [{ slug: 'renamed' }, 'slug'],
          [{ kind: 'smart' }, 'kind'],
          [{ campaign_id: null }, 'campaign_id'],
          [{ click_cap: -1 }, 'click_cap'],
          [{ domain: 'not a host' }, 'domain'],
          [{ expires_at: 'soon' }, 'expires_at'],
          [['status', 'paused'], null],
        ];
        for (const [json, field] of cases) {
          const res = await patch(auth, linkId, json);
          expect(res.status).toBe(400);
          const error = (await body(res)).error;
          if (field) expect(Object.keys(error.fieldErrors)).toEqual([field]);
          else expect(error.formErrors.length).toBeGreaterThan(0);
        }
        expect(await storedLink(db, linkId)).toEqual(before);
        await publishes.settle();
        expect(publishes.seen).toEqual([]);
      });

      test('an unknown id is 404 and announces nothing', async () => {
        const { auth } = await orgWithKey(db);
        await publishes.reset();
        const res = await patch(auth, '01HZZZZZZZZZZZZZZZZZZZZZZZ', { status: 'paused' });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'link not found' });
        await publishes.settle();
        expect(publishes.seen).toEqual([]);
      });

      test('is announced after the change commits: a subscriber reads the new state', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const { linkId } = await insertLink(db, orgId, { slug: 'announced-patch' });
        const reads: Promise<unknown>[] = [];
        const stop = t.services.linkChanges.subscribe((id) => {
          if (id === linkId) reads.push(db.query('SELECT status FROM links WHERE id = $1', [id]).then((rows) => (rows[0] as { status: string }).status));
        });
        await publishes.reset();
        expect((await patch(auth, linkId, { status: 'paused' })).status).toBe(200);
        expect(publishes.seen).toContain(linkId);
        stop();
        expect(reads.length).toBeGreaterThan(0);
        expect(await reads[0]).toBe('paused');
      });
    });

    describe('authentication', () => {
      test('missing, malformed, wrong and revoked keys are 401 on every endpoint and change nothing', async () => {
        const owner = await orgWithKey(db);
        const { linkId } = await insertLink(db, owner.orgId, { slug: 'auth-target' });
        const victim = await orgWithKey(db);
        await revokeApiKey(db, victim.orgId, victim.keyId);
        const wrong = `svc_live_${'A'.repeat(32)}`;
        const headerSets: Record<string, string>[] = [
          {},
          { authorization: 'Bearer nope' },
          { authorization: `Bearer ${wrong}` },
          { authorization: `Basic ${owner.apiKey}` },
          victim.auth,
        ];
        const before = await storedLink(db, linkId);
        for (const headers of headerSets) {
          const calls = [
            create(headers, { slug: 'unauth' }),
            t.request('/api/v1/links', { headers }),
            t.request(`/api/v1/links/${linkId}`, { headers }),
            patch(headers, linkId, { status: 'paused' }),
            t.request(`/api/v1/links?api_key=${owner.apiKey}`, { headers }),
          ];
          for (const res of await Promise.all(calls)) {
            expect(res.status).toBe(401);
            expect(await body(res)).toEqual({ error: 'unauthorized' });
          }
        }
        expect(await storedLink(db, linkId)).toEqual(before);
        expect((await db.query("SELECT 1 FROM links WHERE slug = 'unauth'")).length).toBe(0);
      });

      test('a key revoked after use fails at once', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        expect((await create(auth, { slug: 'before-revoke' })).status).toBe(201);
        await revokeApiKey(db, orgId, keyId);
        expect((await create(auth, { slug: 'after-revoke' })).status).toBe(401);
        expect((await t.request('/api/v1/links', { headers: auth })).status).toBe(401);
      });
    });
  });
}
