import '../support/slow-suite';
import { describe, expect, spyOn, test } from 'bun:test';
import type { HttpError } from '../../src/http/errors';
import { createDestination } from '../../src/postbacks/postbacks.service';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';

const REFUSED = 'destination refused: the host must be a public address, or a name resolving only to public addresses';

const CAP_REACHED = 'an organization can have at most 20 postback destinations; delete one to add another';

for (const backend of backends()) {
  describe(`postback destinations on ${backend.name}`, async () => {
    const db = await backend.create();
    // Production rules: private and loopback targets are refused.
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const open = await testApp(db, { POSTBACK_ALLOW_PRIVATE: '1' }, { mirror: false, workers: false });
    const create = (auth: Record<string, string>, json: unknown, app = t) => app.request('/api/v1/postback-destinations', { method: 'POST', headers: auth, json });

    test('create, list and delete a destination; the secret is shown only at creation', async () => {
      const org = await orgWithKey(db);
      const res = await create(org.auth, { url: 'https://8.8.8.8/pb?cid={click_id}&v={value}', method: 'POST', events: ['purchase'], secret: 'a-secret-of-16-chars' });
      expect(res.status).toBe(201);
      const created = await body(res);
      expect(created).toEqual({
        id: expect.any(String),
        url: 'https://8.8.8.8/pb?cid={click_id}&v={value}',
        method: 'POST',
        events: ['purchase'],
        createdAt: expect.any(String),
        secret: 'a-secret-of-16-chars',
      });
      const listed = await body(await t.request('/api/v1/postback-destinations', { headers: org.auth }));
      expect(listed.data).toEqual([{ id: created.id, url: created.url, method: 'POST', events: ['purchase'], createdAt: created.createdAt }]);
      const deleted = await t.request(`/api/v1/postback-destinations/${created.id}`, { method: 'DELETE', headers: org.auth });
      expect(deleted.status).toBe(200);
      expect(await body(deleted)).toEqual({ ok: true, id: created.id });
      expect((await body(await t.request('/api/v1/postback-destinations', { headers: org.auth }))).data).toEqual([]);
      expect((await t.request(`/api/v1/postback-destinations/${created.id}`, { method: 'DELETE', headers: org.auth })).status).toBe(404);
      const audits = await db.query<{ action: string; api_key_id: string }>(
        "SELECT action, api_key_id FROM audit_log WHERE org_id = $1 AND entity = 'postback_destination' ORDER BY created_at, id",
        [org.orgId],
      );
      expect(audits).toEqual([
        { action: 'create', api_key_id: org.keyId },
        { action: 'delete', api_key_id: org.keyId },
      ]);
    });

    test('defaults: GET, every event, and a generated secret', async () => {
      const org = await orgWithKey(db);
      const created = await body(await create(org.auth, { url: 'https://8.8.4.4/pb' }));
      expect(created).toMatchObject({ method: 'GET', events: null });
      expect(created.secret).toMatch(/^[A-Za-z0-9]{40}$/);
    });

    test.each([
      [{}, 'url'],
      [{ url: 'ftp://8.8.8.8/x' }, 'url'],
      [{ url: 'https://{click_id}.8.8.8.8/x' }, 'url'],
      [{ url: 'https://8.8.8.8/x?c={nope}' }, 'url'],
      [{ url: `https://8.8.8.8/${'x'.repeat(2048)}` }, 'url'],
      [{ url: 'https://8.8.8.8/x', method: 'PUT' }, 'method'],
      [{ url: 'https://8.8.8.8/x', events: [] }, 'events'],
      [{ url: 'https://8.8.8.8/x', events: [''] }, 'events.0'],
      [{ url: 'https://8.8.8.8/x', secret: 'short' }, 'secret'],
      [{ url: 'https://8.8.8.8/x', extra: true }, 'extra'],
    ])('400 names the field for %j', async (input, field) => {
      const org = await orgWithKey(db);
      const res = await create(org.auth, input);
      expect(res.status).toBe(400);
      expect(Object.keys((await body(res)).error.fieldErrors)).toContain(field);
      expect((await body(await t.request('/api/v1/postback-destinations', { headers: org.auth }))).data).toEqual([]);
    });

    test.each([
      'http://127.0.0.1:8080/pb',
      'http://localhost/pb',
      'http://10.0.0.8/pb',
      'http://192.168.0.10/pb',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/pb',
      'http://[::ffff:127.0.0.1]/pb',
      'http://[fd00:ec2::254]/pb',
      'http://0x7f.1/pb',
      'http://2130706433/pb',
      'http://100.100.100.200/pb',
    ])('a destination on a non-public address is refused at creation: %s', async (url) => {
      const org = await orgWithKey(db);
      const res = await create(org.auth, { url });
      expect(res.status).toBe(400);
      expect(await body(res)).toEqual({ error: { formErrors: [], fieldErrors: { url: [REFUSED] } } });
      expect((await db.query('SELECT 1 FROM postback_destinations WHERE org_id = $1', [org.orgId])).length).toBe(0);
    });

    test('a name resolving to a private address and a name that does not resolve get the same answer; the detail is logged', async () => {
      const org = await orgWithKey(db);
      const principal = { orgId: org.orgId, keyId: org.keyId };
      const lookup = async (host: string) => {
        if (host === 'internal.example') return ['10.0.0.7'];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      };
      const warn = spyOn(console, 'warn').mockImplementation(() => {});
      const answers: unknown[] = [];
      try {
        for (const url of ['https://internal.example/pb', 'https://nowhere.example/pb']) {
          answers.push(await createDestination({ db, allowPrivate: false, lookup }, principal, { url }).catch((error: HttpError) => [error.status, error.body]));
        }
        expect(warn.mock.calls.map((call) => call.join(' ')).join('\n')).toContain('internal.example resolves to a non-public address (10.0.0.7)');
      } finally {
        warn.mockRestore();
      }
      expect(answers).toEqual([
        [400, { error: { formErrors: [], fieldErrors: { url: [REFUSED] } } }],
        [400, { error: { formErrors: [], fieldErrors: { url: [REFUSED] } } }],
      ]);
    });

    test('an organization has at most 20 live destinations: the 21st answers 400 and stores nothing', async () => {
      const org = await orgWithKey(db);
      const created = [];
      for (let n = 0; n < 20; n += 1) {
        const res = await create(org.auth, { url: `https://8.8.8.8/pb${n}` });
        expect(res.status).toBe(201);
        created.push(await body(res));
      }
      const refused = await create(org.auth, { url: 'https://8.8.8.8/one-too-many' });
      expect(refused.status).toBe(400);
      expect(await body(refused)).toEqual({ error: { formErrors: [CAP_REACHED], fieldErrors: {} } });
      expect((await db.query('SELECT 1 FROM postback_destinations WHERE org_id = $1', [org.orgId])).length).toBe(20);
      expect((await db.query("SELECT 1 FROM audit_log WHERE org_id = $1 AND entity = 'postback_destination'", [org.orgId])).length).toBe(20);
      // Another organization has its own 20; a deleted destination frees its place.
      const other = await orgWithKey(db);
      expect((await create(other.auth, { url: 'https://8.8.8.8/other' })).status).toBe(201);
      await t.request(`/api/v1/postback-destinations/${created[0].id}`, { method: 'DELETE', headers: org.auth });
      expect((await create(org.auth, { url: 'https://8.8.8.8/after-delete' })).status).toBe(201);
      expect((await create(org.auth, { url: 'https://8.8.8.8/again-too-many' })).status).toBe(400);
    });

    test('concurrent creates cannot pass the cap', async () => {
      const org = await orgWithKey(db);
      const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => create(org.auth, { url: `https://8.8.8.8/race${n}` }).then((res) => res.status)));
      expect(answers.filter((status) => status === 201)).toHaveLength(20);
      expect(answers.filter((status) => status === 400)).toHaveLength(10);
      expect(await db.query('SELECT count(*)::int AS live FROM postback_destinations WHERE org_id = $1 AND deleted_at IS NULL', [org.orgId])).toEqual([{ live: 20 }]);
    });

    test('POSTBACK_ALLOW_PRIVATE=1 lets the operator target private addresses', async () => {
      const org = await orgWithKey(db);
      expect((await create(org.auth, { url: 'http://127.0.0.1:9/pb' }, open)).status).toBe(201);
    });

    test('401 without or with a revoked key', async () => {
      expect((await create({}, { url: 'https://8.8.8.8/x' })).status).toBe(401);
      expect((await t.request('/api/v1/postback-destinations')).status).toBe(401);
      expect((await t.request('/api/v1/postback-deliveries')).status).toBe(401);
      expect((await t.request('/api/v1/postback-destinations/x', { method: 'DELETE' })).status).toBe(401);
    });

    test("organizations see and delete only their own destinations", async () => {
      const a = await orgWithKey(db, 'A');
      const b = await orgWithKey(db, 'B');
      const created = await body(await create(a.auth, { url: 'https://8.8.8.8/a' }));
      expect((await body(await t.request('/api/v1/postback-destinations', { headers: b.auth }))).data).toEqual([]);
      expect((await t.request(`/api/v1/postback-destinations/${created.id}`, { method: 'DELETE', headers: b.auth })).status).toBe(404);
      expect((await body(await t.request('/api/v1/postback-destinations', { headers: a.auth }))).data).toHaveLength(1);
    });

    test('unlisted methods answer 405', async () => {
      const org = await orgWithKey(db);
      expect((await t.request('/api/v1/postback-destinations', { method: 'PUT', headers: org.auth })).status).toBe(405);
      expect((await t.request('/api/v1/postback-deliveries', { method: 'POST', headers: org.auth })).status).toBe(405);
    });

    test.each(['limit=0', 'limit=1001', 'status=unknown'])('400 for deliveries query %s', async (query) => {
      const org = await orgWithKey(db);
      expect((await t.request(`/api/v1/postback-deliveries?${query}`, { headers: org.auth })).status).toBe(400);
    });
  });
}
