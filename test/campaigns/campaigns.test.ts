import { describe, expect, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertApp, orgWithKey } from '../support/fixtures';
import { auditRows, ISO } from '../links/support';

for (const backend of backends()) {
  describe(`campaigns API on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const create = (auth: Record<string, string>, json: unknown) => t.request('/api/v1/campaigns', { method: 'POST', headers: auth, json });
    const campaignRows = (orgId: string) => db.query('SELECT * FROM campaigns WHERE org_id = $1 ORDER BY id', [orgId]);

    describe('POST /api/v1/campaigns', () => {
      test('creates a campaign with exactly the documented fields', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        const { appId } = await insertApp(db, orgId);
        const res = await create(auth, { name: 'Spring search', external_id: '20937465', app_id: appId });
        expect(res.status).toBe(201);
        const campaign = await body(res);
        expect(Object.keys(campaign).sort()).toEqual(['app_id', 'created_at', 'external_id', 'id', 'name', 'partner', 'skan_source_identifier', 'status']);
        expect(campaign).toMatchObject({ name: 'Spring search', external_id: '20937465', app_id: appId, status: 'active', skan_source_identifier: null, partner: null });
        expect(campaign.created_at).toMatch(ISO);
        expect(await campaignRows(orgId)).toMatchObject([{ id: campaign.id, org_id: orgId, app_id: appId, external_id: '20937465' }]);
        expect(await auditRows(db, keyId)).toMatchObject([{ action: 'create', entity: 'campaign', entity_id: campaign.id, api_key_id: keyId, org_id: orgId }]);
      });

      test('external_id and app_id are optional; many campaigns may have none', async () => {
        const { auth, orgId } = await orgWithKey(db);
        for (const json of [{ name: 'A' }, { name: 'B' }, { name: 'C', external_id: null, app_id: null }]) {
          const res = await create(auth, json);
          expect(res.status).toBe(201);
          expect(await body(res)).toMatchObject({ external_id: null, app_id: null, skan_source_identifier: null });
        }
        expect((await campaignRows(orgId)).length).toBe(3);
      });

      test('a repeated external_id is 409 and writes nothing', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        expect((await create(auth, { name: 'First', external_id: 'ext-1' })).status).toBe(201);
        const res = await create(auth, { name: 'Second', external_id: 'ext-1' });
        expect(res.status).toBe(409);
        expect(await body(res)).toEqual({ error: 'external_id taken' });
        expect((await campaignRows(orgId)).map((c) => (c as { name: string }).name)).toEqual(['First']);
        expect((await auditRows(db, keyId)).length).toBe(1);
      });

      test('skan_source_identifier: 0 to 9999, unique per organization (409, nothing written), free in another', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        for (const value of [0, 9999, 42]) {
          const res = await create(auth, { name: `SKAN ${value}`, skan_source_identifier: value });
          expect(res.status).toBe(201);
          expect((await body(res)).skan_source_identifier).toBe(value);
        }
        const taken = await create(auth, { name: 'Again', skan_source_identifier: 42, external_id: 'fresh' });
        expect(taken.status).toBe(409);
        expect(await body(taken)).toEqual({ error: 'skan_source_identifier taken' });
        expect((await campaignRows(orgId)).length).toBe(3);
        expect((await auditRows(db, keyId)).length).toBe(3);
        const other = await orgWithKey(db);
        expect((await create(other.auth, { name: 'Theirs', skan_source_identifier: 42 })).status).toBe(201);
        const races = await Promise.all([1, 2, 3].map((n) => create(other.auth, { name: `Race ${n}`, skan_source_identifier: 7 })));
        expect(races.map((r) => r.status).sort()).toEqual([201, 409, 409]);
        expect((await campaignRows(other.orgId)).length).toBe(2);
      });

      test('two creates racing for one external_id: exactly one wins', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const results = await Promise.all([1, 2, 3].map((n) => create(auth, { name: `Race ${n}`, external_id: 'race' })));
        expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
        expect((await campaignRows(orgId)).length).toBe(1);
      });

      test('an unknown app_id is a 400 field error', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const res = await create(auth, { name: 'Orphan', app_id: '01HZZZZZZZZZZZZZZZZZZZZZZZ' });
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors).toEqual({ app_id: ['unknown app'] });
        expect(await campaignRows(orgId)).toEqual([]);
      });

      test('bad input is a 400 naming the field, and nothing is written', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        const cases: [unknown, string | null][] = [
          [{}, 'name'],
          [{ name: '' }, 'name'],
          [{ name: ' lead' }, 'name'],
          [{ name: 'x'.repeat(201) }, 'name'],
          [{ name: 5 }, 'name'],
          [{ name: 'ok', external_id: '' }, 'external_id'],
          [{ name: 'ok', external_id: 'x'.repeat(129) }, 'external_id'],
          [{ name: 'ok', external_id: 123 }, 'external_id'],
          [{ name: 'ok', app_id: 5 }, 'app_id'],
          [{ name: 'ok', skan_source_identifier: -1 }, 'skan_source_identifier'],
          [{ name: 'ok', skan_source_identifier: 10000 }, 'skan_source_identifier'],
          [{ name: 'ok', skan_source_identifier: 1.5 }, 'skan_source_identifier'],
          [{ name: 'ok', skan_source_identifier: '12' }, 'skan_source_identifier'],
          [{ name: 'ok', status: 'paused' }, 'status'],
          [{ name: 'ok', id: 'mine' }, 'id'],
          [[{ name: 'ok' }], null],
        ];
        for (const [json, field] of cases) {
          const res = await create(auth, json);
          expect(res.status, JSON.stringify(json)).toBe(400);
          const error = (await body(res)).error;
          if (field) expect(Object.keys(error.fieldErrors)).toEqual([field]);
          else expect(error.formErrors.length).toBeGreaterThan(0);
        }
        expect(await campaignRows(orgId)).toEqual([]);
        expect(await auditRows(db, keyId)).toEqual([]);
      });
    });

    describe('partner (the media source)', () => {
      const patch = (auth: Record<string, string>, id: string, json: unknown) => t.request(`/api/v1/campaigns/${id}`, { method: 'PATCH', headers: auth, json });

      test('set on create, shown by get and list, changed and cleared by PATCH, each change audited', async () => {
        const { auth, keyId } = await orgWithKey(db);
        const created = await body(await create(auth, { name: 'Search', partner: 'google_ads' }));
        expect(created.partner).toBe('google_ads');
        expect((await body(await t.request(`/api/v1/campaigns/${created.id}`, { headers: auth }))).partner).toBe('google_ads');
        expect((await body(await t.request('/api/v1/campaigns', { headers: auth }))).data.map((c: any) => c.partner)).toEqual(['google_ads']);
        const moved = await patch(auth, created.id, { partner: 'Meta Ads (EU)' });
        expect(moved.status).toBe(200);
        expect(await body(moved)).toMatchObject({ id: created.id, name: 'Search', partner: 'Meta Ads (EU)' });
        expect(await body(await patch(auth, created.id, { name: 'Search EU' }))).toMatchObject({ name: 'Search EU', partner: 'Meta Ads (EU)' });
        expect((await body(await patch(auth, created.id, { partner: null }))).partner).toBeNull();
        expect((await body(await t.request(`/api/v1/campaigns/${created.id}`, { headers: auth }))).partner).toBeNull();
        const audits = await db.query<{ action: string; detail: unknown }>('SELECT action, detail FROM audit_log WHERE api_key_id = $1 ORDER BY created_at, id', [keyId]);
        expect(audits.map((row) => [row.action, row.detail])).toEqual([
          ['create', { name: 'Search', external_id: null, app_id: null, skan_source_identifier: null, partner: 'google_ads' }],
          ['update', { fields: ['partner'] }],
          ['update', { fields: ['name'] }],
          ['update', { fields: ['partner'] }],
        ]);
      });

      test('64 printable characters at most, without leading or trailing blanks; a bad one is a 400 that changes nothing', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        expect((await body(await create(auth, { name: 'Long', partner: 'p'.repeat(64) }))).partner).toBe('p'.repeat(64));
        const existing = await body(await create(auth, { name: 'Kept', partner: 'tiktok' }));
        for (const partner of ['', ' meta', 'meta ', 'p'.repeat(65), 'line\nbreak', 5]) {
          const created = await create(auth, { name: 'Bad', partner });
          expect(created.status, JSON.stringify(partner)).toBe(400);
          expect(Object.keys((await body(created)).error.fieldErrors)).toEqual(['partner']);
          const changed = await patch(auth, existing.id, { partner });
          expect(changed.status).toBe(400);
          expect(Object.keys((await body(changed)).error.fieldErrors)).toEqual(['partner']);
        }
        for (const json of [{ status: 'paused' }, { skan_source_identifier: 1 }, { external_id: ' x' }]) expect(Object.keys((await body(await patch(auth, existing.id, json))).error.fieldErrors)).toEqual(Object.keys(json));
        const empty = await patch(auth, existing.id, {});
        expect(empty.status).toBe(400);
        expect((await body(empty)).error.formErrors).toEqual(['the body names no field to change: name, partner, external_id, app_id, status']);
        expect((await campaignRows(orgId)).map((c: any) => c.partner).sort()).toEqual(['p'.repeat(64), 'tiktok']);
        expect((await auditRows(db, keyId)).length).toBe(2);
      });

      test('PATCH changes the external id, the app and the status; a taken external id is a 409, a foreign app an unknown one', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const other = await orgWithKey(db, 'Other');
        const { appId } = await insertApp(db, orgId);
        const { appId: foreignApp } = await insertApp(db, other.orgId);
        const holder = await body(await create(auth, { name: 'Holder', external_id: 'held' }));
        const created = await body(await create(auth, { name: 'Moving', external_id: 'old-id' }));
        const moved = await patch(auth, created.id, { external_id: 'new-id', app_id: appId, status: 'archived' });
        expect(moved.status).toBe(200);
        expect(await body(moved)).toMatchObject({ external_id: 'new-id', app_id: appId, status: 'archived', name: 'Moving' });
        // The old id is free again; the new one is taken.
        expect((await create(auth, { name: 'Reuse', external_id: 'old-id' })).status).toBe(201);
        const taken = await patch(auth, created.id, { external_id: holder.external_id });
        expect(taken.status).toBe(409);
        expect(await body(taken)).toEqual({ error: 'external_id taken' });
        const foreign = await patch(auth, created.id, { app_id: foreignApp });
        expect(foreign.status).toBe(400);
        expect((await body(foreign)).error.fieldErrors).toEqual({ app_id: ['unknown app'] });
        expect((await body(await t.request(`/api/v1/campaigns/${created.id}`, { headers: auth })))).toMatchObject({ external_id: 'new-id', app_id: appId, status: 'archived' });
        expect(await body(await patch(auth, created.id, { external_id: null, app_id: null, status: 'active' }))).toMatchObject({ external_id: null, app_id: null, status: 'active' });
      });

      test("PATCH of an unknown or another organization's campaign is 404 and changes nothing; no key is 401", async () => {
        const mine = await orgWithKey(db);
        const theirs = await orgWithKey(db, 'Other');
        const campaign = await body(await create(theirs.auth, { name: 'Theirs', partner: 'meta' }));
        for (const id of [campaign.id, 'no-such-campaign']) {
          const res = await patch(mine.auth, id, { partner: 'google_ads' });
          expect(res.status).toBe(404);
          expect(await body(res)).toEqual({ error: 'campaign not found' });
        }
        expect((await patch({}, campaign.id, { partner: 'google_ads' })).status).toBe(401);
        expect((await campaignRows(theirs.orgId)).map((c: any) => c.partner)).toEqual(['meta']);
      });
    });

    describe('GET /api/v1/campaigns', () => {
      test('lists newest first, with a limit', async () => {
        const { auth } = await orgWithKey(db);
        const made = [];
        for (const name of ['One', 'Two', 'Three']) made.push(await body(await create(auth, { name })));
        expect((await body(await t.request('/api/v1/campaigns', { headers: auth }))).data).toEqual(made.toReversed());
        expect((await body(await t.request('/api/v1/campaigns?limit=1', { headers: auth }))).data).toEqual([made[2]]);
        for (const limit of ['0', '1001', 'x']) expect((await t.request(`/api/v1/campaigns?limit=${limit}`, { headers: auth })).status).toBe(400);
      });
    });

    describe('authentication', () => {
      test('missing, wrong and revoked keys are 401 on every endpoint and change nothing', async () => {
        const owner = await orgWithKey(db);
        await create(owner.auth, { name: 'Existing' });
        const revoked = await orgWithKey(db);
        await revokeApiKey(db, revoked.orgId, revoked.keyId);
        const before = await campaignRows(owner.orgId);
        for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Bearer svc_live_${'C'.repeat(32)}` }, revoked.auth]) {
          for (const res of await Promise.all([create(headers, { name: 'Sneaky' }), t.request('/api/v1/campaigns', { headers })])) {
            expect(res.status).toBe(401);
            expect(await body(res)).toEqual({ error: 'unauthorized' });
          }
        }
        expect(await campaignRows(owner.orgId)).toEqual(before);
        expect(await campaignRows(revoked.orgId)).toEqual([]);
      });
    });
  });
}
