import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { sdkCall } from '../sdk/support';

// Every timestamp a client can send, at and past the edges of the range (docs/http-rules.md, "Input limits").
const OUT_OF_RANGE = [
  '0000-01-01T00:00:00Z', // year zero
  '0001-01-01T00:00:00-23:59', // offset past ±15:59
  '2026-01-01T00:00:00+16:00',
  '0001-01-01T00:00:00+01:00', // before 0001-01-01 once in UTC
  '9999-12-31T23:00:00-05:00', // past 9999-12-31 once in UTC
  '2016-12-31T23:59:60Z', // a leap second
  '2026-13-01T10:00:00Z',
];
// The last one: an offset of hours only, as ISO 8601 allows.
const EDGES = ['0001-01-01T00:00:00Z', '0001-01-01T15:59:00+15:59', '9999-12-31T23:59:59.999999Z', '9999-12-31T08:00:00-15:59', '2026-01-01T10:00:00+05'];

for (const backend of backends()) {
  describe(`timestamps through the HTTP app on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db);

    test('GET /api/v1/clicks?since= answers 400 naming since outside the range, 200 at its edges', async () => {
      const org = await orgWithKey(db);
      for (const since of OUT_OF_RANGE) {
        const res = await t.request(`/api/v1/clicks?since=${encodeURIComponent(since)}`, { headers: org.auth });
        expect([since, res.status]).toEqual([since, 400]);
        expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { since: [expect.any(String)] } });
      }
      for (const since of EDGES) {
        const res = await t.request(`/api/v1/clicks?since=${encodeURIComponent(since)}`, { headers: org.auth });
        expect([since, res.status]).toEqual([since, 200]);
      }
    });

    test('the SDK install of the issue (installed_at 0000-01-01) answers 400 naming installed_at; the edges are stored', async () => {
      const org = await orgWithKey(db);
      const app = await sdkApp(db, org.orgId);
      const call = sdkCall(t, app.sdkKey);
      for (const installed_at of OUT_OF_RANGE) {
        const res = await call('install', { device_id: hashedDeviceId(), platform: 'android', installed_at });
        expect([installed_at, res.status]).toEqual([installed_at, 400]);
        expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { installed_at: [expect.any(String)] } });
      }
      expect((await db.query('SELECT id FROM installs WHERE app_id = $1', [app.appId])).length).toBe(0);
      for (const installed_at of EDGES) {
        const res = await call('install', { device_id: hashedDeviceId(), platform: 'android', installed_at });
        expect([installed_at, res.status]).toEqual([installed_at, 201]);
      }
      const stored = await db.query<{ at: string }>("SELECT to_char(installed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS at FROM installs WHERE app_id = $1 ORDER BY installed_at", [app.appId]);
      // Every edge but the future one is stored as sent; a time after now is stored as now.
      expect(stored.map((row) => row.at).slice(0, 2)).toEqual(['0001-01-01 00:00', '0001-01-01 00:00']);
    });

    test('every other SDK timestamp answers 400 naming its field, nested ones by index', async () => {
      const org = await orgWithKey(db);
      const app = await sdkApp(db, org.orgId);
      const call = sdkCall(t, app.sdkKey);
      const deviceId = hashedDeviceId();
      expect((await call('install', { device_id: deviceId, platform: 'android' })).status).toBe(201);
      const bad = '0001-01-01T00:00:00-23:59';
      const cases: [string, Record<string, unknown>, string][] = [
        ['events', { device_id: deviceId, events: [{ name: 'a' }, { name: 'b', occurred_at: bad }] }, 'events.1.occurred_at'],
        ['open', { device_id: deviceId, occurred_at: bad }, 'occurred_at'],
        ['subscription', { device_id: deviceId, store: 'google', purchase_token: 'p1', product_id: 'pro', expires_at: bad }, 'expires_at'],
        ['subscription', { device_id: deviceId, store: 'google', purchase_token: 'p2', product_id: 'pro', occurred_at: bad }, 'occurred_at'],
        ['ad-revenue', { device_id: deviceId, events: [{ network: 'n', revenue: 1, ts: bad }] }, 'events.0.ts'],
      ];
      for (const [path, json, field] of cases) {
        const res = await call(path, json);
        expect([path, field, res.status]).toEqual([path, field, 400]);
        expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { [field]: [expect.any(String)] } });
      }
      const counts = await db.query<{ n: number }>(
        'SELECT (SELECT count(*) FROM events WHERE app_id = $1)::int + (SELECT count(*) FROM reengagements WHERE app_id = $1)::int + (SELECT count(*) FROM subscriptions WHERE app_id = $1)::int AS n',
        [app.appId],
      );
      expect(counts[0]!.n).toBe(0);
      for (const [path, json] of cases) {
        const fixed = JSON.parse(JSON.stringify(json).replaceAll(bad, '9999-12-31T08:00:00-15:59'));
        expect([path, (await call(path, fixed)).status]).toEqual([path, 200]);
      }
    });

    test('a link expires_at outside the range answers 400 naming expires_at; the edges are stored', async () => {
      const org = await orgWithKey(db);
      for (const expires_at of OUT_OF_RANGE) {
        const res = await t.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { kind: 'smart', destination: 'https://shop.example/', expires_at } });
        expect([expires_at, res.status]).toEqual([expires_at, 400]);
        expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { expires_at: [expect.any(String)] } });
      }
      for (const [expires_at, stored] of [
        ['0001-01-01T15:59:00+15:59', '0001-01-01T00:00:00.000Z'],
        ['9999-12-31T08:00:00-15:59', '9999-12-31T23:59:00.000Z'],
      ]) {
        const res = await t.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { kind: 'smart', destination: 'https://shop.example/', expires_at } });
        expect(res.status).toBe(201);
        const link = await body(res);
        expect(link.expires_at).toBe(stored);
        expect((await body(await t.request(`/api/v1/links/${link.id}`, { headers: org.auth }))).expires_at).toBe(stored);
      }
    });

    test('a cost day outside years 1 to 9999 answers 400 naming the row', async () => {
      const org = await orgWithKey(db);
      const res = await t.request('/api/v1/costs', { method: 'POST', headers: org.auth, json: { rows: [{ campaign_id: 'c', day: '2026-01-01', spend: 1 }, { campaign_id: 'c', day: '0000-12-31', spend: 1 }] } });
      expect(res.status).toBe(400);
      expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { 'rows.1.day': [expect.any(String)] } });
    });
  });
}
