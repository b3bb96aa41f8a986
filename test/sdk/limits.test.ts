import { describe, expect, test } from 'bun:test';
import { MAX_JSON_DEPTH, TOO_DEEP } from '../../src/http/json-body';
import { EVENT_PARAMS_ERROR, MAX_EVENT_PARAMS_BYTES, MAX_EVENT_PARAMS_KEYS } from '../../src/sdk/sdk.model';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { sdkCall } from './support';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** An object of `keys` keys whose JSON is exactly `size` bytes (the last value is padded). */
function paramsOf(keys: number, size: number, char = 'x'): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < keys; i++) params[`k${i}`] = '';
  const last = `k${keys - 1}`;
  const room = size - bytes(params);
  params[last] = char.repeat(Math.floor(room / Buffer.byteLength(char, 'utf8')));
  while (bytes(params) < size) params[last] += 'x';
  return params;
}

for (const backend of backends()) {
  describe(`SDK storage limits on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db);

    async function device() {
      const org = await orgWithKey(db);
      const app = await sdkApp(db, org.orgId);
      return { appId: app.appId, call: sdkCall(t, app.sdkKey), deviceId: hashedDeviceId() };
    }
    const stored = async (appId: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE app_id = $1', [appId]))[0]!.n;

    test('the issue: a 4.5 MB events body is refused whole, naming every oversized params, and nothing is stored', async () => {
      const d = await device();
      const oversized = (i: number) => i % 10 !== 0;
      const events = Array.from({ length: 100 }, (_, i) => ({ name: 'spam', params: oversized(i) ? { blob: 'x'.repeat(50_000) } : { ok: 1 } }));
      expect(bytes({ device_id: d.deviceId, events })).toBeGreaterThan(4_500_000);
      const res = await d.call('events', { device_id: d.deviceId, events });
      expect(res.status).toBe(400);
      const { error } = await body(res);
      expect(error.formErrors).toEqual([]);
      expect(Object.keys(error.fieldErrors).sort()).toEqual(events.flatMap((_, i) => (oversized(i) ? [`events.${i}.params`] : [])).sort());
      expect(error.fieldErrors['events.1.params']).toEqual([EVENT_PARAMS_ERROR]);
      expect(await stored(d.appId)).toBe(0);
    });

    test(`params of ${MAX_EVENT_PARAMS_KEYS} keys and ${MAX_EVENT_PARAMS_BYTES} bytes are stored; one key or one byte more is a 400 naming the event`, async () => {
      const d = await device();
      const fits = paramsOf(MAX_EVENT_PARAMS_KEYS, MAX_EVENT_PARAMS_BYTES);
      const multibyte = paramsOf(3, MAX_EVENT_PARAMS_BYTES, 'é');
      expect([bytes(fits), bytes(multibyte)]).toEqual([MAX_EVENT_PARAMS_BYTES, MAX_EVENT_PARAMS_BYTES]);
      const ok = await d.call('events', { device_id: d.deviceId, events: [{ name: 'a', params: fits }, { name: 'b', params: multibyte }] });
      expect(await body(ok)).toEqual({ accepted: 2 });
      const rows = await db.query<{ params: unknown }>('SELECT params FROM events WHERE app_id = $1 ORDER BY name', [d.appId]);
      expect(rows.map((row) => row.params)).toEqual([fits, multibyte]);

      const cases: [Record<string, unknown>, string][] = [
        [paramsOf(MAX_EVENT_PARAMS_KEYS + 1, 600), 'events.3.params'],
        [paramsOf(1, MAX_EVENT_PARAMS_BYTES + 1), 'events.3.params'],
        [paramsOf(2, MAX_EVENT_PARAMS_BYTES + 1, 'é'), 'events.3.params'],
        [{ nested: { deep: 'x'.repeat(MAX_EVENT_PARAMS_BYTES) } }, 'events.3.params'],
      ];
      for (const [params, field] of cases) {
        const events = [{ name: 'a' }, { name: 'b', params: { fine: true } }, { name: 'c', params: null }, { name: 'd', params }];
        const res = await d.call('events', { device_id: d.deviceId, events });
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors)).toEqual([field]);
      }
      expect(await stored(d.appId)).toBe(2);
    });

    test('params nested to the body bound are stored and read back; one level deeper stores nothing', async () => {
      const d = await device();
      const paramsAt = (arrays: number) => {
        let nested: unknown = 'leaf';
        for (let i = 0; i < arrays; i++) nested = [nested];
        return { nested };
      };
      // The body, `events`, the event and `params` are the first four levels.
      const params = paramsAt(MAX_JSON_DEPTH - 4);
      expect(await body(await d.call('events', { device_id: d.deviceId, events: [{ name: 'deep', params }] }))).toEqual({ accepted: 1 });
      const [row] = await db.query<{ params: unknown }>('SELECT params FROM events WHERE app_id = $1', [d.appId]);
      expect(row!.params).toEqual(params);
      const deeper = await d.call('events', { device_id: d.deviceId, events: [{ name: 'deeper', params: paramsAt(MAX_JSON_DEPTH - 3) }] });
      expect({ status: deeper.status, body: await body(deeper) }).toEqual({ status: 400, body: { error: { formErrors: [TOO_DEEP], fieldErrors: {} } } });
      expect(await db.query('SELECT 1 FROM events WHERE app_id = $1', [d.appId])).toHaveLength(1);
    });

    test('every other text the SDK key can store is bounded by the schema (400 naming the field, nothing stored)', async () => {
      const d = await device();
      const long = (n: number) => 'x'.repeat(n + 1);
      const installCases: [Record<string, unknown>, string][] = [
        [{ os_version: long(128) }, 'os_version'],
        [{ app_version: long(128) }, 'app_version'],
        [{ sdk_version: long(128) }, 'sdk_version'],
        [{ locale: long(35) }, 'locale'],
        [{ timezone: long(64) }, 'timezone'],
        [{ install_referrer: long(4096) }, 'install_referrer'],
      ];
      for (const [extra, field] of installCases) {
        const res = await d.call('install', { device_id: hashedDeviceId(), platform: 'android', ...extra });
        expect([field, res.status]).toEqual([field, 400]);
        expect(Object.keys((await body(res)).error.fieldErrors)).toEqual([field]);
      }
      expect((await db.query('SELECT id FROM installs WHERE app_id = $1', [d.appId])).length).toBe(0);
      expect((await d.call('install', { device_id: d.deviceId, platform: 'android' })).status).toBe(201);
      const push = await d.call('push-token', { device_id: d.deviceId, platform: 'android', push_token: long(4096) });
      expect(Object.keys((await body(push)).error.fieldErrors)).toEqual(['push_token']);
      const subscription = await d.call('subscription', { device_id: d.deviceId, store: 'google', purchase_token: long(4096), product_id: 'p' });
      expect(Object.keys((await body(subscription)).error.fieldErrors)).toEqual(['purchase_token']);
      const name = await d.call('events', { device_id: d.deviceId, events: [{ name: long(64) }] });
      expect(Object.keys((await body(name)).error.fieldErrors)).toEqual(['events.0.name']);
      const key = await d.call('events', { device_id: d.deviceId, events: [{ name: 'k', params: { [long(128)]: 1 } }] });
      expect((await body(key)).error.fieldErrors).toEqual({ 'events.0.params': [EVENT_PARAMS_ERROR] });
      expect(await stored(d.appId)).toBe(0);
    });
  });
}
