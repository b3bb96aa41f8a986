import { describe, expect, test } from 'bun:test';
import { body, TEST_TRACKING_URL, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { registerAccount } from '../protect/support';
import { auditRows, orgSnapshot, recordPublishes, storedLink } from './support';

/** DELETE /api/v1/links/{id} and its session twin: the URL stops answering, the slug is free, the clicks stay. */
for (const backend of backends()) {
  describe(`deleting links on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false });
    const publishes = recordPublishes(t.services.linkChanges);
    const create = (auth: Record<string, string>, json: unknown) => t.request('/api/v1/links', { method: 'POST', headers: auth, json });
    const remove = (headers: Record<string, string>, id: string) => t.request(`/api/v1/links/${id}`, { method: 'DELETE', headers });

    describe('happy', () => {
      test('a deleted link answers 404 on /c and in the API, is announced and audited; its clicks stay; the slug can be used again', async () => {
        const { auth, keyId, orgId } = await orgWithKey(db);
        const link = await body(await create(auth, { slug: 'gone-soon', destination: 'https://shop.example.com/' }));
        expect((await t.request(`${TEST_TRACKING_URL}/c/gone-soon`)).status).toBe(302);
        const clickId = await insertClick(db, { orgId, linkId: link.id });
        await publishes.reset();

        const res = await remove(auth, link.id);
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ ok: true, id: link.id });
        expect(await storedLink(db, link.id)).toBeUndefined();
        await publishes.settle();
        expect(publishes.seen).toContain(link.id);
        expect((await auditRows(db, keyId)).at(-1)).toMatchObject({ action: 'delete', entity: 'link', entity_id: link.id });
        expect((await t.request(`/api/v1/links/${link.id}`, { headers: auth })).status).toBe(404);
        expect((await t.request(`${TEST_TRACKING_URL}/c/gone-soon`)).status).toBe(404);
        expect((await db.query('SELECT id FROM clicks WHERE id = $1', [clickId])).length).toBe(1);

        expect((await create(auth, { slug: 'gone-soon', destination: 'https://shop.example.com/again' })).status).toBe(201);
      });

      test('the session route deletes the same way', async () => {
        const account = await registerAccount(t);
        const made = await t.request('/api/dashboard/links', { method: 'POST', headers: { cookie: account.cookie }, json: { destination: 'https://shop.example.com/' } });
        const { id } = await body(made);
        const res = await t.request(`/api/dashboard/links/${id}`, { method: 'DELETE', headers: { cookie: account.cookie } });
        expect(res.status).toBe(200);
        expect(await storedLink(db, id)).toBeUndefined();
      });
    });

    describe('error', () => {
      test('an unknown id: 404, nothing changed; twice: 404 the second time', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const link = await body(await create(auth, { slug: 'twice-deleted' }));
        const before = await orgSnapshot(db, orgId);
        const unknown = await remove(auth, '01HZZZZZZZZZZZZZZZZZZZZZZZ');
        expect(unknown.status).toBe(404);
        expect(await body(unknown)).toEqual({ error: 'link not found' });
        expect(await orgSnapshot(db, orgId)).toEqual(before);
        expect((await remove(auth, link.id)).status).toBe(200);
        expect((await remove(auth, link.id)).status).toBe(404);
      });

      test('no key, no session: 401 and the link stays', async () => {
        const { auth } = await orgWithKey(db);
        const link = await body(await create(auth, { slug: 'needs-auth' }));
        expect((await remove({}, link.id)).status).toBe(401);
        expect((await t.request(`/api/dashboard/links/${link.id}`, { method: 'DELETE' })).status).toBe(401);
        expect(await storedLink(db, link.id)).toBeDefined();
      });
    });

    describe('security', () => {
      test("another organization's link: 404 through the key and the session, and it stays", async () => {
        const mine = await orgWithKey(db);
        const theirs = await orgWithKey(db);
        const account = await registerAccount(t);
        const link = await body(await create(mine.auth, { slug: 'not-yours' }));
        const before = await orgSnapshot(db, mine.orgId);
        expect((await remove(theirs.auth, link.id)).status).toBe(404);
        expect((await t.request(`/api/dashboard/links/${link.id}`, { method: 'DELETE', headers: { cookie: account.cookie } })).status).toBe(404);
        expect(await orgSnapshot(db, mine.orgId)).toEqual(before);
      });
    });
  });
}
