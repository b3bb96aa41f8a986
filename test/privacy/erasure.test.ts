import { describe, expect, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { sdkApp } from '../support/sdk-fixtures';
import { insertClick } from '../support/clicks';
import { expectSecurityHeaders } from '../support/http';
import { mirrored, tablesContaining } from '../sdk/support';
import { mirrorTablesContaining, personWithData } from './support';

for (const backend of backends()) {
  describe(`privacy erasure on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1', ERASURE_SWEEP_SECONDS: '0' }, { workers: false });
    const erase = (auth: Record<string, string>, json: unknown) => t.request('/api/v1/privacy/erasure', { method: 'POST', headers: auth, json });
    const status = (auth: Record<string, string>, id: string) => t.request(`/api/v1/privacy/erasure/${id}`, { headers: auth });
    const count = async (sql: string, params: unknown[]) => (await db.query<{ n: number }>(sql, params))[0]!.n;

    test('a device is erased from Postgres and the DuckDB mirror, and its request reports the counts', async () => {
      const p = await personWithData(t, '198.51.100.201');
      // Everything is in the mirror first, so the mirror has something to delete.
      await mirrored(t, 'SELECT id FROM installs WHERE id = $1', [p.installId], (rows) => rows.length === 1);
      await mirrored(t, 'SELECT id FROM clicks WHERE id = $1 OR id = $2', p.clickIds, (rows) => rows.length === 2);
      await mirrored(t, 'SELECT id FROM subscriptions WHERE id = $1', [p.subscriptionId], (rows) => rows.length === 1);

      const filed = await erase(p.auth, { device_id: p.deviceId });
      expect(filed.status).toBe(202);
      const { id, status: state } = await body(filed);
      expect(state).toBe('pending');
      expect(await body(await status(p.auth, id))).toMatchObject({ id, status: 'pending', subject: 'device_id', source: 'api', completed_at: null });

      expect(await t.services.erasureRunner.runOnce()).toBe(1);
      const done = await body(await status(p.auth, id));
      expect(done.status).toBe('completed');
      expect(done.completed_at).toEqual(expect.any(String));
      expect(done.counts).toEqual({ installs: 1, events: 3, subscriptions: 1, reengagements: 1, clicks: 2, conversions: 1 });

      const needles = [p.deviceId, p.deviceHash, p.installId, ...p.clickIds, p.pushToken, p.originalTransactionId, p.subscriptionId, p.ip];
      for (const needle of needles) expect({ needle, tables: await tablesContaining(db, needle) }).toEqual({ needle, tables: [] });
      // The conversion stays (the advertiser's order), without its click.
      expect(await db.query('SELECT click_id, gclid FROM conversions WHERE id = $1', [p.conversionId])).toEqual([{ click_id: null, gclid: null }]);

      await mirrored(t, 'SELECT id FROM installs WHERE id = $1', [p.installId], (rows) => rows.length === 0);
      await mirrored(t, 'SELECT id FROM conversions WHERE id = $1 AND click_id IS NULL', [p.conversionId], (rows) => rows.length === 1);
      for (const needle of needles) expect({ needle, tables: await mirrorTablesContaining(t, needle) }).toEqual({ needle, tables: [] });
      // The mirror's copy of the deletion log is spent once applied.
      expect(await t.services.mirror.query('SELECT * FROM mirror_deletions')).toEqual([]);
    });

    test('the audit row names who asked and the kind of subject, never its value', async () => {
      const p = await personWithData(t);
      const { id } = await body(await erase(p.auth, { device_id: p.deviceId }));
      await t.services.erasureRunner.runOnce();
      const audit = await db.query<{ api_key_id: string; action: string; detail: unknown }>(
        `SELECT api_key_id, action, detail FROM audit_log WHERE org_id = $1 AND entity = 'erasure_request' AND entity_id = $2`,
        [p.orgId, id],
      );
      expect(audit).toEqual([{ api_key_id: p.keyId, action: 'privacy.erasure.request', detail: { subject: 'device_id', source: 'api', app_id: null } }]);
      const [request] = await db.query<Record<string, unknown>>('SELECT * FROM erasure_requests WHERE id = $1', [id]);
      expect(request!.subject_value).toBeNull();
      expect(JSON.stringify(request)).not.toContain(p.deviceHash);
      expect(JSON.stringify(request)).not.toContain(p.deviceId);
    });

    test('a click id erases that click, and an install keeps its row without it', async () => {
      const p = await personWithData(t);
      const { id } = await body(await erase(p.auth, { click_id: p.clickIds[0] }));
      await t.services.erasureRunner.runOnce();
      expect((await body(await status(p.auth, id))).counts).toEqual({ clicks: 1, conversions: 1, installs_unlinked: 1 });
      expect(await tablesContaining(db, p.clickIds[0]!)).toEqual([]);
      expect(await count('SELECT count(*)::int AS n FROM installs WHERE id = $1', [p.installId])).toBe(1);
      expect(await count('SELECT count(*)::int AS n FROM clicks WHERE id = $1', [p.clickIds[1]])).toBe(1);
    });

    test('an install id erases the install and what belongs to its device', async () => {
      const p = await personWithData(t);
      const { id } = await body(await erase(p.auth, { install_id: p.installId }));
      await t.services.erasureRunner.runOnce();
      expect((await body(await status(p.auth, id))).counts).toMatchObject({ installs: 1, events: 3, subscriptions: 1, clicks: 2 });
      expect(await tablesContaining(db, p.deviceHash)).toEqual([]);
    });

    test('an address over a day range erases its clicks and leaves other days and addresses alone', async () => {
      const p = await personWithData(t, '192.0.2.77');
      const other = await personWithData(t, '192.0.2.78');
      const today = new Date().toISOString().slice(0, 10);
      const { id } = await body(await erase(p.auth, { ip: '192.0.2.77', from: '2020-01-01', to: '2020-01-02' }));
      await t.services.erasureRunner.runOnce();
      expect((await body(await status(p.auth, id))).counts).toEqual({});
      expect(await count('SELECT count(*)::int AS n FROM clicks WHERE org_id = $1', [p.orgId])).toBe(2);

      const second = await body(await erase(p.auth, { ip: '::ffff:192.0.2.77', from: today, to: today }));
      await t.services.erasureRunner.runOnce();
      expect((await body(await status(p.auth, second.id))).counts).toMatchObject({ clicks: 2, installs_anonymised: 1 });
      expect(await tablesContaining(db, '192.0.2.77')).toEqual([]);
      expect(await count('SELECT count(*)::int AS n FROM clicks WHERE org_id = $1', [other.orgId])).toBe(2);
    });

    test('an advertising id found in a click\'s query parameters erases that click', async () => {
      const p = await personWithData(t);
      const [params] = await db.query<{ params: Record<string, string> }>('SELECT params FROM clicks WHERE id = $1', [p.clickIds[1]]);
      const advertisingId = params!.params.idfa!;
      const { id } = await body(await erase(p.auth, { advertising_id: advertisingId.toLowerCase() }));
      await t.services.erasureRunner.runOnce();
      expect((await body(await status(p.auth, id))).counts).toMatchObject({ clicks: 1 });
      expect(await tablesContaining(db, advertisingId)).toEqual([]);
      expect(await count('SELECT count(*)::int AS n FROM clicks WHERE id = $1', [p.clickIds[0]])).toBe(1);
    });

    describe('POST /api/sdk/v1/forget', () => {
      const forget = (sdkKey: string, json: unknown) => t.request('/api/sdk/v1/forget', { method: 'POST', headers: { 'x-sdk-key': sdkKey }, json });

      test("files the same request for the app's own device, whatever else the device did", async () => {
        const p = await personWithData(t);
        const res = await forget(p.sdkKey, { device_id: p.deviceId });
        expect(res.status).toBe(202);
        const { id } = await body(res);
        expect((await body(await forget(p.sdkKey, { device_id: p.deviceId }))).id).toBe(id);
        await t.services.erasureRunner.runOnce();
        expect(await body(await status(p.auth, id))).toMatchObject({ status: 'completed', source: 'sdk', counts: { installs: 1, events: 3, subscriptions: 1, clicks: 2 } });
        expect(await tablesContaining(db, p.deviceHash)).toEqual([]);
        const [audit] = await db.query<{ api_key_id: string | null; detail: unknown }>(`SELECT api_key_id, detail FROM audit_log WHERE entity_id = $1`, [id]);
        expect(audit).toEqual({ api_key_id: null, detail: { subject: 'device_id', source: 'sdk', app_id: p.appId } });
      });

      test("another app's SDK key, of this organization or another, erases nothing of this app", async () => {
        const p = await personWithData(t);
        const sibling = await sdkApp(db, p.orgId, { platform: 'ios' });
        const foreign = await sdkApp(db, (await orgWithKey(db)).orgId, { platform: 'ios' });
        for (const key of [sibling.sdkKey, foreign.sdkKey]) expect((await forget(key, { device_id: p.deviceId })).status).toBe(202);
        await t.services.erasureRunner.runOnce();
        expect(await count('SELECT count(*)::int AS n FROM installs WHERE id = $1', [p.installId])).toBe(1);
        expect(await count('SELECT count(*)::int AS n FROM events WHERE install_id = $1', [p.installId])).toBe(3);
      });

      test('401 without a valid SDK key, 400 for a bad body; nothing filed', async () => {
        const p = await personWithData(t);
        for (const headers of [{}, { 'x-sdk-key': 'sk_nope' }] as Record<string, string>[]) {
          const res = await t.request('/api/sdk/v1/forget', { method: 'POST', headers, json: { device_id: p.deviceId } });
          expect(res.status).toBe(401);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
        for (const json of [{}, { device_id: 'short' }, { device_id: 123456789 }, { device_id: null }]) {
          const res = await forget(p.sdkKey, json);
          expect({ json, status: res.status }).toEqual({ json, status: 400 });
          expect((await body(res)).error).toEqual({ formErrors: expect.any(Array), fieldErrors: expect.any(Object) });
        }
        expect(await count('SELECT count(*)::int AS n FROM erasure_requests WHERE org_id = $1', [p.orgId])).toBe(0);
      });
    });

    test('with a sweep, the request stays pending after the first pass and the sweep erases what landed since', async () => {
      const swept = await testApp(db, { TRUST_PROXY: '1', ERASURE_SWEEP_SECONDS: '3600' }, { workers: false, mirror: false });
      const p = await personWithData(swept, '203.0.113.99');
      const today = new Date().toISOString().slice(0, 10);
      const { id } = await body(await swept.request('/api/v1/privacy/erasure', { method: 'POST', headers: p.auth, json: { ip: p.ip, from: today, to: today } }));
      expect(await swept.services.erasureRunner.runOnce()).toBe(1);
      expect(await body(await swept.request(`/api/v1/privacy/erasure/${id}`, { headers: p.auth }))).toMatchObject({ status: 'pending', counts: { clicks: 2 } });
      // Not due yet: nothing is claimed.
      expect(await swept.services.erasureRunner.runOnce()).toBe(0);
      // A click from the address that was still in a journal lands, and the sweep comes due.
      const late = await insertClick(db, { orgId: p.orgId, ip: p.ip });
      await db.query('UPDATE erasure_requests SET next_attempt_at = now() WHERE id = $1', [id]);
      expect(await swept.services.erasureRunner.runOnce()).toBe(1);
      expect(await body(await swept.request(`/api/v1/privacy/erasure/${id}`, { headers: p.auth }))).toMatchObject({ status: 'completed', counts: { clicks: 3 } });
      expect(await count('SELECT count(*)::int AS n FROM clicks WHERE id = $1', [late])).toBe(0);
    });

    describe('idempotency', () => {
      test('the same request while pending is one request; after it ran, a repeat erases nothing more', async () => {
        const p = await personWithData(t);
        const first = await erase(p.auth, { device_id: p.deviceId });
        const again = await erase(p.auth, { device_id: ` ${p.deviceId} ` });
        expect(first.status).toBe(202);
        expect(again.status).toBe(202);
        const id = (await body(first)).id;
        expect((await body(again)).id).toBe(id);
        // The device id as its SHA-256, as the SDK sends it, names the same subject.
        expect((await body(await erase(p.auth, { device_id: p.deviceHash.toUpperCase() }))).id).toBe(id);
        expect(await count('SELECT count(*)::int AS n FROM erasure_requests WHERE org_id = $1', [p.orgId])).toBe(1);
        expect(await count(`SELECT count(*)::int AS n FROM audit_log WHERE org_id = $1 AND entity = 'erasure_request'`, [p.orgId])).toBe(1);
        await t.services.erasureRunner.runOnce();

        const repeat = await body(await erase(p.auth, { device_id: p.deviceId }));
        expect(repeat.id).not.toBe(id);
        await t.services.erasureRunner.runOnce();
        expect(await body(await status(p.auth, repeat.id))).toMatchObject({ status: 'completed', counts: {} });
      });
    });

    describe('bad subjects', () => {
      test('400 in the spec shape, and nothing is filed', async () => {
        const org = await orgWithKey(db);
        const cases: [unknown, string | null][] = [
          [{}, null],
          [{ device_id: 'abcdefgh', click_id: 'abcd1234' }, null],
          [{ device_id: 'short' }, 'device_id'],
          [{ device_id: '        ' }, 'device_id'],
          [{ click_id: 'abc' }, 'click_id'],
          [{ ip: 'not-an-ip', from: '2026-01-01', to: '2026-01-02' }, 'ip'],
          [{ ip: '192.0.2.1' }, 'from'],
          [{ ip: '192.0.2.1', from: '2026-02-30', to: '2026-03-01' }, 'from'],
          [{ ip: '192.0.2.1', from: '2026-03-02', to: '2026-03-01' }, 'to'],
          [{ ip: '192.0.2.1', from: '2020-01-01', to: '2026-01-01' }, 'to'],
          [{ click_id: 'abcd1234', from: '2026-01-01' }, 'from'],
          [{ device_id: 'abcdefgh', extra: 1 }, 'extra'],
          [{ device_id: 12345678 }, 'device_id'],
          [[], null],
        ];
        for (const [json, field] of cases) {
          const res = await erase(org.auth, json);
          expect({ json, status: res.status }).toEqual({ json, status: 400 });
          const answer = await body(res);
          expect(answer.error).toEqual({ formErrors: expect.any(Array), fieldErrors: expect.any(Object) });
          if (field === null) expect(answer.error.formErrors.length).toBeGreaterThan(0);
          else expect(Object.keys(answer.error.fieldErrors)).toContain(field);
        }
        expect(await count('SELECT count(*)::int AS n FROM erasure_requests WHERE org_id = $1', [org.orgId])).toBe(0);
      });

      test('an unknown request id is 404', async () => {
        const org = await orgWithKey(db);
        const res = await status(org.auth, '01J0000000000000000000000');
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'erasure request not found' });
      });
    });

    describe('security', () => {
      test('methods the paths do not list answer 405 with the security headers', async () => {
        const org = await orgWithKey(db);
        for (const [method, path] of [['GET', '/api/v1/privacy/erasure'], ['DELETE', '/api/v1/privacy/erasure/01J0000000000000000000000'], ['GET', '/api/sdk/v1/forget']]) {
          const res = await t.request(path!, { method, headers: org.auth });
          expect({ method, path, status: res.status }).toEqual({ method, path, status: 405 });
          expectSecurityHeaders(res);
        }
      });

      test('no key or a wrong key is 401 and files nothing', async () => {
        const before = await count('SELECT count(*)::int AS n FROM erasure_requests', []);
        for (const headers of [{}, { authorization: 'Bearer svc_live_00000000000000000000000000000000' }] as Record<string, string>[]) {
          const res = await erase(headers, { device_id: 'abcdefgh' });
          expect(res.status).toBe(401);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
          expect((await status(headers, '01J0000000000000000000000')).status).toBe(401);
        }
        expect(await count('SELECT count(*)::int AS n FROM erasure_requests', [])).toBe(before);
      });

      test("another organization's key neither erases this organization's data nor reads its request", async () => {
        const p = await personWithData(t);
        const intruder = await orgWithKey(db, 'Intruder');
        for (const json of [{ device_id: p.deviceId }, { install_id: p.installId }, { click_id: p.clickIds[0] }, { ip: p.ip, from: '2020-01-01', to: '2020-12-31' }]) {
          expect((await erase(intruder.auth, json)).status).toBe(202);
        }
        const own = await body(await erase(p.auth, { advertising_id: 'nothing-of-this-org' }));
        await t.services.erasureRunner.runOnce();
        await t.services.erasureRunner.runOnce();
        expect(await count('SELECT count(*)::int AS n FROM installs WHERE id = $1', [p.installId])).toBe(1);
        expect(await count('SELECT count(*)::int AS n FROM clicks WHERE org_id = $1', [p.orgId])).toBe(2);
        expect(await count('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [p.orgId])).toBe(3);
        const foreign = await status(intruder.auth, own.id);
        expect(foreign.status).toBe(404);
        expect(await body(foreign)).toEqual({ error: 'erasure request not found' });
      });
    });
  });
}
