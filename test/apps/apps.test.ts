import { describe, expect, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import { authenticateSdkKey } from '../../src/auth/sdk-keys';
import { sha256Hex } from '../../src/shared/crypto/secrets';
import { PLATFORMS, SETTING_RANGES } from '../../src/apps/apps.model';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { auditRows, ISO } from '../links/support';

for (const backend of backends()) {
  describe(`apps API on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const create = (auth: Record<string, string>, json: unknown) => t.request('/api/v1/apps', { method: 'POST', headers: auth, json });
    const patch = (auth: Record<string, string>, id: string, json: unknown) => t.request(`/api/v1/apps/${id}`, { method: 'PATCH', headers: auth, json });
    const appRows = (orgId: string) => db.query('SELECT * FROM apps WHERE org_id = $1 ORDER BY id', [orgId]);

    describe('POST /api/v1/apps', () => {
      test('creates an app with a working SDK key, stored by hash', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        const res = await create(auth, { name: 'Shop', platform: 'ios', bundle_id: 'com.example.shop', store_url: 'https://apps.apple.com/app/id123' });
        expect(res.status).toBe(201);
        const app = await body(res);
        expect(app).toMatchObject({ name: 'Shop', platform: 'ios', bundle_id: 'com.example.shop', store_url: 'https://apps.apple.com/app/id123', apple_app_id: null, reattribution_days: 90, settings: {} });
        expect(app.id).toBeString();
        expect(app.sdk_key).toMatch(/^sk_[A-Za-z0-9]{32}$/);
        expect(app.created_at).toMatch(ISO);
        expect(app).not.toHaveProperty('sdk_key_hash');
        const [row] = await appRows(orgId);
        expect(row).toMatchObject({ id: app.id, sdk_key: app.sdk_key, sdk_key_hash: sha256Hex(app.sdk_key) });
        expect(await authenticateSdkKey(db, app.sdk_key)).toEqual({ appId: app.id, orgId, platform: 'ios', reattributionDays: 90, settings: {}, rateLimitPerMinute: null });
        const audit = await auditRows(db, keyId);
        expect(audit).toMatchObject([{ action: 'create', entity: 'app', entity_id: app.id, api_key_id: keyId, org_id: orgId }]);
        const detail = await db.query<{ detail: unknown }>('SELECT detail FROM audit_log WHERE entity_id = $1', [app.id]);
        expect(JSON.stringify(detail)).not.toContain(app.sdk_key);
      });

      test('accepts every platform of the spec and gives each app its own key', async () => {
        const { auth } = await orgWithKey(db);
        const keys = new Set<string>();
        for (const platform of PLATFORMS) {
          const res = await create(auth, { name: `App ${platform}`, platform });
          expect(res.status).toBe(201);
          keys.add((await body(res)).sdk_key);
        }
        expect(keys.size).toBe(PLATFORMS.length);
      });

      test('stores attribution settings at their bounds', async () => {
        const { auth } = await orgWithKey(db);
        const low = Object.fromEntries(Object.entries(SETTING_RANGES).map(([k, r]) => [k, r.min]));
        const high = Object.fromEntries(Object.entries(SETTING_RANGES).map(([k, r]) => [k, r.max]));
        for (const settings of [{ ...low, skan_enabled: true }, { ...high, skan_enabled: false }]) {
          const app = await body(await create(auth, { name: 'Windows', platform: 'android', reattribution_days: 30, settings }));
          expect(app.settings).toEqual(settings);
          expect(app.reattribution_days).toBe(30);
          expect((await authenticateSdkKey(db, app.sdk_key))!.settings).toEqual(settings);
        }
        const nulls = await body(await create(auth, { name: 'Defaults', platform: 'web', settings: { click_lookback_days: null, skan_enabled: true } }));
        expect(nulls.settings).toEqual({ skan_enabled: true });
      });

      test('bad input is a 400 naming the field, and nothing is written', async () => {
        const { auth, orgId, keyId } = await orgWithKey(db);
        const valid = { name: 'Shop', platform: 'android' };
        const cases: [unknown, string][] = [
          [{ platform: 'android' }, 'name'],
          [{ ...valid, name: '' }, 'name'],
          [{ ...valid, name: '  padded ' }, 'name'],
          [{ ...valid, name: 'x'.repeat(201) }, 'name'],
          [{ name: 'Shop' }, 'platform'],
          [{ ...valid, platform: 'ps5' }, 'platform'],
          [{ ...valid, platform: 'IOS' }, 'platform'],
          [{ ...valid, bundle_id: 'com example' }, 'bundle_id'],
          [{ ...valid, store_url: 'javascript:alert(1)' }, 'store_url'],
          [{ ...valid, store_url: 'play.google.com/store' }, 'store_url'],
          [{ ...valid, reattribution_days: 0 }, 'reattribution_days'],
          [{ ...valid, reattribution_days: 731 }, 'reattribution_days'],
          [{ ...valid, reattribution_days: '90' }, 'reattribution_days'],
          [{ ...valid, reattribution_days: 7.5 }, 'reattribution_days'],
          [{ ...valid, settings: { skan_enabled: 'yes' } }, 'settings.skan_enabled'],
          [{ ...valid, settings: { attribution_window: 7 } }, 'settings.attribution_window'],
          [{ ...valid, settings: [] }, 'settings'],
          [{ ...valid, sdk_key: 'sk_chosen' }, 'sdk_key'],
          [{ ...valid, skan_enabled: true }, 'skan_enabled'],
          [{ ...valid, apple_app_id: 525463029 }, 'apple_app_id'],
          [{ ...valid, apple_app_id: '0525463029' }, 'apple_app_id'],
          [{ ...valid, apple_app_id: 'id525463029' }, 'apple_app_id'],
          [{ ...valid, apple_app_id: '' }, 'apple_app_id'],
          [{ ...valid, apple_app_id: '1'.repeat(21) }, 'apple_app_id'],
        ];
        for (const [name, range] of Object.entries(SETTING_RANGES)) {
          cases.push([{ ...valid, settings: { [name]: range.min - 1 } }, `settings.${name}`]);
          cases.push([{ ...valid, settings: { [name]: range.max + 1 } }, `settings.${name}`]);
          cases.push([{ ...valid, settings: { [name]: 1.5 } }, `settings.${name}`]);
        }
        for (const [json, field] of cases) {
          const res = await create(auth, json);
          expect(res.status, JSON.stringify(json)).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual([field]);
        }
        expect(await appRows(orgId)).toEqual([]);
        expect(await auditRows(db, keyId)).toEqual([]);
      });
    });

    describe('GET /api/v1/apps and /api/v1/apps/{id}', () => {
      test('lists newest first with their SDK keys, and reads one', async () => {
        const { auth } = await orgWithKey(db);
        const first = await body(await create(auth, { name: 'First', platform: 'roku' }));
        const second = await body(await create(auth, { name: 'Second', platform: 'fire_tv', settings: { household_window_hours: 48 } }));
        const list = await body(await t.request('/api/v1/apps', { headers: auth }));
        expect(list.data).toEqual([second, first]);
        expect((await body(await t.request('/api/v1/apps?limit=1', { headers: auth }))).data).toEqual([second]);
        expect((await t.request('/api/v1/apps?limit=0', { headers: auth })).status).toBe(400);
        const one = await t.request(`/api/v1/apps/${first.id}`, { headers: auth });
        expect(one.status).toBe(200);
        expect(await body(one)).toEqual(first);
      });

      test('an unknown id is 404 app not found', async () => {
        const { auth } = await orgWithKey(db);
        const res = await t.request('/api/v1/apps/01HZZZZZZZZZZZZZZZZZZZZZZZ', { headers: auth });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'app not found' });
      });
    });

    describe('PATCH /api/v1/apps/{id}', () => {
      test('replaces name, store_url and reattribution_days; merges settings key by key', async () => {
        const { auth, keyId } = await orgWithKey(db);
        const app = await body(await create(auth, { name: 'Old', platform: 'android', store_url: 'https://play.google.com/store/apps/details?id=x', settings: { click_lookback_days: 7 } }));
        const renamed = await body(await patch(auth, app.id, { name: 'New', reattribution_days: 30, store_url: null }));
        expect(renamed).toMatchObject({ name: 'New', reattribution_days: 30, store_url: null, settings: { click_lookback_days: 7 }, sdk_key: app.sdk_key, platform: 'android', created_at: app.created_at });
        const merged = await body(await patch(auth, app.id, { settings: { view_through_window_hours: 24, skan_enabled: true } }));
        expect(merged.settings).toEqual({ click_lookback_days: 7, view_through_window_hours: 24, skan_enabled: true });
        const reset = await body(await patch(auth, app.id, { settings: { click_lookback_days: null, probabilistic_window_hours: 12 } }));
        expect(reset.settings).toEqual({ view_through_window_hours: 24, skan_enabled: true, probabilistic_window_hours: 12 });
        expect(reset.name).toBe('New');
        const sdkView = await authenticateSdkKey(db, app.sdk_key);
        expect(sdkView).toMatchObject({ reattributionDays: 30, settings: reset.settings });
        expect(await body(await t.request(`/api/v1/apps/${app.id}`, { headers: auth }))).toEqual(reset);
        expect((await auditRows(db, keyId)).map((a) => [a.action, a.entity, a.entity_id])).toEqual([
          ['create', 'app', app.id],
          ['update', 'app', app.id],
          ['update', 'app', app.id],
          ['update', 'app', app.id],
        ]);
      });

      test('apple_app_id is set on create, replaced and cleared by PATCH', async () => {
        const { auth } = await orgWithKey(db);
        const app = await body(await create(auth, { name: 'iOS', platform: 'ios', apple_app_id: '525463029' }));
        expect(app.apple_app_id).toBe('525463029');
        expect((await body(await patch(auth, app.id, { apple_app_id: '1234567890' }))).apple_app_id).toBe('1234567890');
        expect((await body(await patch(auth, app.id, { name: 'Renamed' }))).apple_app_id).toBe('1234567890');
        expect((await body(await patch(auth, app.id, { apple_app_id: null }))).apple_app_id).toBeNull();
      });

      test('concurrent PATCHes of different settings both survive', async () => {
        const { auth } = await orgWithKey(db);
        const app = await body(await create(auth, { name: 'Race', platform: 'ios' }));
        const results = await Promise.all([
          patch(auth, app.id, { settings: { click_lookback_days: 3 } }),
          patch(auth, app.id, { settings: { household_window_hours: 100 } }),
        ]);
        expect(results.map((r) => r.status)).toEqual([200, 200]);
        expect((await body(await t.request(`/api/v1/apps/${app.id}`, { headers: auth }))).settings).toEqual({ click_lookback_days: 3, household_window_hours: 100 });
      });

      test('bad input is 400 and changes nothing', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const app = await body(await create(auth, { name: 'Keep', platform: 'ios', settings: { skan_enabled: true } }));
        const before = await appRows(orgId);
        const cases: [unknown, string | null][] = [
          [{}, null],
          [{ platform: 'android' }, 'platform'],
          [{ bundle_id: 'com.other' }, 'bundle_id'],
          [{ sdk_key: 'sk_x' }, 'sdk_key'],
          [{ name: '' }, 'name'],
          [{ reattribution_days: 0 }, 'reattribution_days'],
          [{ store_url: 'data:text/html,x' }, 'store_url'],
          [{ apple_app_id: 'abc' }, 'apple_app_id'],
          [{ settings: { click_lookback_days: 31 } }, 'settings.click_lookback_days'],
          [{ settings: { forwarder: { url: 'https://x.example' } } }, 'settings.forwarder'],
          [{ settings: null }, 'settings'],
          ['name', null],
        ];
        for (const [json, field] of cases) {
          const res = await patch(auth, app.id, json);
          expect(res.status, JSON.stringify(json)).toBe(400);
          const error = (await body(res)).error;
          if (field) expect(Object.keys(error.fieldErrors)).toEqual([field]);
          else expect(error.formErrors.length).toBeGreaterThan(0);
        }
        expect(await appRows(orgId)).toEqual(before);
      });

      test('an unknown id is 404', async () => {
        const { auth, keyId } = await orgWithKey(db);
        const res = await patch(auth, '01HZZZZZZZZZZZZZZZZZZZZZZZ', { name: 'Ghost' });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'app not found' });
        expect(await auditRows(db, keyId)).toEqual([]);
      });
    });

    describe('authentication', () => {
      test('missing, wrong and revoked keys are 401 on every endpoint and change nothing', async () => {
        const owner = await orgWithKey(db);
        const app = await body(await create(owner.auth, { name: 'Guarded', platform: 'ios' }));
        const revoked = await orgWithKey(db);
        await revokeApiKey(db, revoked.orgId, revoked.keyId);
        const before = await appRows(owner.orgId);
        for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Bearer svc_live_${'B'.repeat(32)}` }, revoked.auth]) {
          const calls = [
            create(headers, { name: 'Sneaky', platform: 'ios' }),
            t.request('/api/v1/apps', { headers }),
            t.request(`/api/v1/apps/${app.id}`, { headers }),
            patch(headers, app.id, { name: 'Sneaky' }),
          ];
          for (const res of await Promise.all(calls)) {
            expect(res.status).toBe(401);
            expect(await body(res)).toEqual({ error: 'unauthorized' });
          }
        }
        expect(await appRows(owner.orgId)).toEqual(before);
        expect(await appRows(revoked.orgId)).toEqual([]);
      });

      test('an SDK key is not an API key', async () => {
        const { auth } = await orgWithKey(db);
        const app = await body(await create(auth, { name: 'Sdk', platform: 'ios' }));
        const res = await t.request('/api/v1/apps', { headers: { authorization: `Bearer ${app.sdk_key}`, 'x-sdk-key': app.sdk_key } });
        expect(res.status).toBe(401);
      });
    });
  });
}
