import { describe, expect, test } from 'bun:test';
import { body, testApp, type TestApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { auditRows, orgSnapshot, recordPublishes } from './support';

type Org = Awaited<ReturnType<typeof orgWithKey>>;

/** What one organization owns, made through the API with its own key. */
async function populate(t: TestApp, org: Org, tag: string) {
  const post = async (path: string, json: unknown) => {
    const res = await t.request(path, { method: 'POST', headers: org.auth, json });
    expect(res.status).toBe(201);
    return body(res);
  };
  const app = await post('/api/v1/apps', { name: `App ${tag}`, platform: 'ios', settings: { click_lookback_days: 7 } });
  const campaign = await post('/api/v1/campaigns', { name: `Campaign ${tag}`, external_id: 'shared-ext-id', app_id: app.id });
  const link = await post('/api/v1/links', { slug: `iso-${tag}`, campaign_id: campaign.id, destination: 'https://shop.example.com', domain: `go.${tag}.example.com` });
  return { ...org, app, campaign, link };
}

/**
 * Every endpoint of the management API, called by `intruder` on the rows of `owner`: nothing is
 * read, nothing is written, and the answer is the one an unknown id gets.
 */
for (const backend of backends()) {
  describe(`two-organization isolation on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false });
    const publishes = recordPublishes(t.services.linkChanges);
    const a = await populate(t, await orgWithKey(db, 'A'), 'a');
    const b = await populate(t, await orgWithKey(db, 'B'), 'b');
    const unknownId = '01HZZZZZZZZZZZZZZZZZZZZZZZ';

    for (const [ownerName, intruderName] of [
      ['A', 'B'],
      ['B', 'A'],
    ] as const) {
      const owner = ownerName === 'A' ? a : b;
      const intruder = intruderName === 'A' ? a : b;
      const as = (path: string, init: RequestInit & { json?: unknown } = {}) => t.request(path, { ...init, headers: { ...intruder.auth, ...init.headers } });

      /** Runs `attempt` and proves the owner's rows, audit trail and link caches saw nothing. */
      const untouched = async (attempt: () => Promise<void>) => {
        const before = await orgSnapshot(db, owner.orgId);
        await publishes.reset();
        await attempt();
        expect(await orgSnapshot(db, owner.orgId)).toEqual(before);
        await publishes.settle();
        expect(publishes.seen).not.toContain(owner.link.id);
      };

      describe(`${intruderName}'s key against ${ownerName}'s rows`, () => {
        test('GET /api/v1/apps lists only its own apps', () =>
          untouched(async () => {
            const ids = (await body(await as('/api/v1/apps'))).data.map((x: { id: string }) => x.id);
            expect(ids).toContain(intruder.app.id);
            expect(ids).not.toContain(owner.app.id);
          }));

        test('GET /api/v1/apps/{id} answers 404 exactly as for an unknown id', () =>
          untouched(async () => {
            const foreign = await as(`/api/v1/apps/${owner.app.id}`);
            const unknown = await as(`/api/v1/apps/${unknownId}`);
            expect([foreign.status, unknown.status]).toEqual([404, 404]);
            expect(await body(foreign)).toEqual(await body(unknown));
          }));

        test('PATCH /api/v1/apps/{id} answers 404 and changes nothing', () =>
          untouched(async () => {
            const res = await as(`/api/v1/apps/${owner.app.id}`, { method: 'PATCH', json: { name: 'Taken over', reattribution_days: 1, settings: { click_lookback_days: 30 } } });
            expect(res.status).toBe(404);
            expect(await body(res)).toEqual({ error: 'app not found' });
          }));

        test('POST /api/v1/apps creates in its own organization only', () =>
          untouched(async () => {
            const res = await as('/api/v1/apps', { method: 'POST', json: { name: 'Own app', platform: 'web' } });
            expect(res.status).toBe(201);
            const created = await body(res);
            const [row] = await db.query<{ org_id: string }>('SELECT org_id FROM apps WHERE id = $1', [created.id]);
            expect(row!.org_id).toBe(intruder.orgId);
            expect((await body(await t.request('/api/v1/apps', { headers: owner.auth }))).data.map((x: { id: string }) => x.id)).not.toContain(created.id);
          }));

        test('GET /api/v1/campaigns lists only its own campaigns', () =>
          untouched(async () => {
            const ids = (await body(await as('/api/v1/campaigns'))).data.map((x: { id: string }) => x.id);
            expect(ids).toContain(intruder.campaign.id);
            expect(ids).not.toContain(owner.campaign.id);
          }));

        test("POST /api/v1/campaigns with the other organization's app_id is the unknown-app 400", () =>
          untouched(async () => {
            const foreign = await as('/api/v1/campaigns', { method: 'POST', json: { name: 'Hijack', app_id: owner.app.id } });
            const unknown = await as('/api/v1/campaigns', { method: 'POST', json: { name: 'Hijack', app_id: unknownId } });
            expect([foreign.status, unknown.status]).toEqual([400, 400]);
            const answer = await body(foreign);
            expect(answer).toEqual(await body(unknown));
            expect(answer.error.fieldErrors).toEqual({ app_id: ['unknown app'] });
          }));

        test('external_id is unique per organization: the same value is free in the other one', async () => {
          // Both organizations already hold 'shared-ext-id' (made in populate); a repeat within one is 409.
          const res = await as('/api/v1/campaigns', { method: 'POST', json: { name: 'Repeat', external_id: 'shared-ext-id' } });
          expect(res.status).toBe(409);
          expect(owner.campaign.external_id).toBe(intruder.campaign.external_id);
        });

        test('GET /api/v1/links lists only its own links', () =>
          untouched(async () => {
            const ids = (await body(await as('/api/v1/links'))).data.map((x: { id: string }) => x.id);
            expect(ids).toContain(intruder.link.id);
            expect(ids).not.toContain(owner.link.id);
          }));

        test('GET /api/v1/links/{id} answers 404 exactly as for an unknown id', () =>
          untouched(async () => {
            const foreign = await as(`/api/v1/links/${owner.link.id}`);
            const unknown = await as(`/api/v1/links/${unknownId}`);
            expect([foreign.status, unknown.status]).toEqual([404, 404]);
            const answer = await body(foreign);
            expect(answer).toEqual(await body(unknown));
            expect(answer).toEqual({ error: 'link not found' });
          }));

        test('PATCH /api/v1/links/{id} answers 404, changes nothing and announces nothing', () =>
          untouched(async () => {
            for (const json of [{ status: 'paused' }, { destination: 'https://evil.example' }, { domain: null }, { rules: [{ if: {}, then: { url: 'https://evil.example' } }] }, { preview: { title: 'x' } }, { pass_params: true }]) {
              const res = await as(`/api/v1/links/${owner.link.id}`, { method: 'PATCH', json });
              expect(res.status).toBe(404);
              expect(await body(res)).toEqual({ error: 'link not found' });
            }
          }));

        test("POST /api/v1/links with the other organization's campaign_id is the unknown-campaign 400", () =>
          untouched(async () => {
            const foreign = await as('/api/v1/links', { method: 'POST', json: { campaign_id: owner.campaign.id } });
            const unknown = await as('/api/v1/links', { method: 'POST', json: { campaign_id: unknownId } });
            expect([foreign.status, unknown.status]).toEqual([400, 400]);
            expect(await body(foreign)).toEqual(await body(unknown));
          }));

        test("POST /api/v1/links on the other organization's domain is 409 domain taken", () =>
          untouched(async () => {
            const res = await as('/api/v1/links', { method: 'POST', json: { slug: 'fresh-slug', domain: owner.link.domain.toUpperCase() } });
            expect(res.status).toBe(409);
            expect(await body(res)).toEqual({ error: 'domain taken' });
            expect((await db.query('SELECT 1 FROM links WHERE slug = $1', ['fresh-slug'])).length).toBe(0);
          }));

        test("PATCH moving its own link to the other organization's domain is 409 and changes nothing", () =>
          untouched(async () => {
            const before = await orgSnapshot(db, intruder.orgId);
            const res = await as(`/api/v1/links/${intruder.link.id}`, { method: 'PATCH', json: { domain: owner.link.domain, status: 'paused' } });
            expect(res.status).toBe(409);
            expect(await body(res)).toEqual({ error: 'domain taken' });
            expect(await orgSnapshot(db, intruder.orgId)).toEqual(before);
          }));

        test('a slug on the shared tracking host is first come, first served and leaves the holder untouched', () =>
          untouched(async () => {
            const res = await as('/api/v1/links', { method: 'POST', json: { slug: owner.link.slug, domain: owner.link.domain } });
            expect(res.status).toBe(409);
          }));

        test("the intruder's audit trail holds only writes to its own rows", async () => {
          const own = new Set([
            ...(await db.query<{ id: string }>('SELECT id FROM apps WHERE org_id = $1', [intruder.orgId])),
            ...(await db.query<{ id: string }>('SELECT id FROM campaigns WHERE org_id = $1', [intruder.orgId])),
            ...(await db.query<{ id: string }>('SELECT id FROM links WHERE org_id = $1', [intruder.orgId])),
          ].map((row) => row.id));
          const trail = await auditRows(db, intruder.keyId);
          expect(trail.length).toBeGreaterThan(0);
          for (const row of trail) {
            expect(row.org_id).toBe(intruder.orgId);
            expect(own.has(row.entity_id)).toBe(true);
          }
        });
      });
    }
  });
}
