import { describe, expect, test } from 'bun:test';
import { sha256Hex } from '../../src/shared/crypto/secrets';
import { body, testApp } from '../support/app';
import { ANDROID_PHONE, insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, insertLink, orgWithKey } from '../support/fixtures';
import { awayFromWindowEnd } from '../support/rate-window';
import { daysAgo, hashedDeviceId, hoursAgo, sdkApp } from '../support/sdk-fixtures';
import { sdkCall, tablesContaining } from './support';

const INSTALL_SHAPE = {
  install_id: expect.any(String),
  attribution: { method: expect.any(String), campaign: null, click_id: null, deep_link_path: null },
  is_reattribution: false,
};

for (const backend of backends()) {
  describe(`POST /api/sdk/v1/install on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1', POSTBACK_ALLOW_PRIVATE: '1' }, { mirror: false, workers: false });
    const { ipHasher } = t.services;

    async function newApp(input: Parameters<typeof sdkApp>[2] = {}) {
      const org = await orgWithKey(db);
      const app = await sdkApp(db, org.orgId, input);
      return { ...org, ...app };
    }

    describe('happy', () => {
      test('201 for a new install, 200 with the same install for a repeat of the app and device', async () => {
        const app = await newApp();
        const call = sdkCall(t, app.sdkKey, '192.0.2.1');
        const deviceId = hashedDeviceId();
        const first = await call('install', { device_id: deviceId, platform: 'android', os_version: '14', app_version: '1.2.0' });
        expect(first.status).toBe(201);
        const created = await body(first);
        expect(created).toEqual({ ...INSTALL_SHAPE, attribution: { ...INSTALL_SHAPE.attribution, method: 'ORGANIC' } });
        const again = await call('install', { device_id: deviceId, platform: 'android' });
        expect(again.status).toBe(200);
        expect(await body(again)).toEqual(created);
        const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM installs WHERE app_id = $1', [app.appId]);
        expect(rows[0]!.n).toBe(1);
      });

      test("the install keeps the country of the request's address; an address of no known country keeps none", async () => {
        const app = await newApp();
        const german = await body(await sdkCall(t, app.sdkKey, '5.1.66.1')('install', { device_id: hashedDeviceId(), platform: 'android' }));
        const documentation = await body(await sdkCall(t, app.sdkKey, '192.0.2.9')('install', { device_id: hashedDeviceId(), platform: 'android' }));
        const country = async (id: string) => (await db.query<{ country: string | null }>('SELECT country FROM installs WHERE id = $1', [id]))[0]!.country;
        expect(await country(german.install_id)).toBe('DE');
        expect(await country(documentation.install_id)).toBeNull();
      });

      test('a launch click id attributes the install and returns the deferred deep link; the evidence is kept', async () => {
        const app = await newApp();
        const { campaignId } = await insertCampaign(db, app.orgId, { appId: app.appId });
        const { linkId } = await insertLink(db, app.orgId, { campaignId, deepLinkPath: '/product/42' });
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: app.orgId, createdAt: hoursAgo(new Date(), 2), linkId, campaignId });
        const res = await sdkCall(t, app.sdkKey)('install', { device_id: hashedDeviceId(), platform: 'android', click_id: clickId });
        expect(res.status).toBe(201);
        const answer = await body(res);
        expect(answer.attribution).toEqual({ method: 'CLICK_ID', campaign: campaignId, click_id: clickId, deep_link_path: '/product/42' });
        const [row] = await db.query<{ match_evidence: Record<string, unknown>; click_id: string; ip_day_hash: string; household_hash: string }>(
          'SELECT match_evidence, click_id, ip_day_hash, household_hash FROM installs WHERE id = $1',
          [answer.install_id],
        );
        expect(row!.click_id).toBe(clickId);
        expect(row!.match_evidence).toMatchObject({ tier: 'CLICK_ID', click_id: clickId, signals: ['click_id'] });
        expect(row!.household_hash).toBe(ipHasher.household('203.0.113.10'));
      });

      test('the device address comes from the trusted proxy header: probabilistic match with its confidence stored', async () => {
        const app = await newApp({ platform: 'ios' });
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: app.orgId, ip: '198.51.100.77', createdAt: hoursAgo(new Date(), 4), osFamily: 'iOS', osVersion: '17.4' });
        const res = await sdkCall(t, app.sdkKey, '198.51.100.77')('install', { device_id: hashedDeviceId(), platform: 'ios', os_version: '17.4.1' });
        const answer = await body(res);
        expect(answer.attribution).toMatchObject({ method: 'PROBABILISTIC', click_id: clickId });
        const [row] = await db.query<{ confidence: number; match_evidence: { signals: string[] } }>('SELECT confidence, match_evidence FROM installs WHERE id = $1', [answer.install_id]);
        expect(row!.confidence).toBeGreaterThan(0.5);
        expect(row!.match_evidence.signals).toEqual(['ip', 'os_family', 'os_version']);
      });

      test('the key may come as ?sdk_key=', async () => {
        const app = await newApp();
        const res = await t.request(`/api/sdk/v1/install?sdk_key=${app.sdkKey}`, { method: 'POST', json: { device_id: hashedDeviceId(), platform: 'android' } });
        expect(res.status).toBe(201);
      });

      test('concurrent first calls for one device make one install', async () => {
        const app = await newApp();
        const deviceId = hashedDeviceId();
        const call = sdkCall(t, app.sdkKey);
        const responses = await Promise.all(Array.from({ length: 6 }, () => call('install', { device_id: deviceId, platform: 'android' })));
        expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
        const ids = new Set(await Promise.all(responses.map(async (r) => (await body(r)).install_id)));
        expect(ids.size).toBe(1);
      });
    });

    describe('installs written together (group commit)', () => {
      test('thirty concurrent installs of different devices each get their own row and attribution', async () => {
        const app = await newApp();
        const { campaignId } = await insertCampaign(db, app.orgId, { appId: app.appId });
        const clicks = await Promise.all(Array.from({ length: 15 }, () => insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: app.orgId, createdAt: hoursAgo(new Date(), 1), campaignId, ip: null })));
        const devices = Array.from({ length: 30 }, () => hashedDeviceId());
        const responses = await Promise.all(
          devices.map((device_id, i) => sdkCall(t, app.sdkKey, `198.51.100.${i + 1}`)('install', { device_id, platform: 'android', ...(i < 15 ? { click_id: clicks[i] } : {}) })),
        );
        expect(responses.map((r) => r.status)).toEqual(devices.map(() => 201));
        const answers = await Promise.all(responses.map(body));
        expect(new Set(answers.map((a) => a.install_id)).size).toBe(30);
        answers.forEach((answer, i) => {
          expect(answer.attribution).toMatchObject(i < 15 ? { method: 'CLICK_ID', click_id: clicks[i], campaign: campaignId } : { method: 'ORGANIC', click_id: null });
        });
        const rows = await db.query<{ id: string; device_id_hash: string; click_id: string | null }>('SELECT id, device_id_hash, click_id FROM installs WHERE app_id = $1', [app.appId]);
        expect(rows).toHaveLength(30);
        answers.forEach((answer, i) => {
          expect(rows.find((row) => row.id === answer.install_id)).toMatchObject({ device_id_hash: devices[i], click_id: i < 15 ? clicks[i] : null });
        });
      });
    });

    describe('re-attribution', () => {
      test('before reattribution_days have passed a repeat answers the install unchanged, even with a new click', async () => {
        const app = await newApp({ reattributionDays: 30 });
        const deviceId = hashedDeviceId();
        const call = sdkCall(t, app.sdkKey, '192.0.2.50');
        const first = await body(await call('install', { device_id: deviceId, platform: 'android', installed_at: daysAgo(new Date(), 20).toISOString() }));
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: app.orgId, createdAt: hoursAgo(new Date(), 1), ip: null });
        const res = await call('install', { device_id: deviceId, platform: 'android', click_id: clickId });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual(first);
      });

      test('after reattribution_days a newer touch re-attributes the same install', async () => {
        const app = await newApp({ reattributionDays: 30 });
        const deviceId = hashedDeviceId();
        const call = sdkCall(t, app.sdkKey, '192.0.2.51');
        const first = await body(await call('install', { device_id: deviceId, platform: 'android', installed_at: daysAgo(new Date(), 40).toISOString() }));
        expect(first.attribution.method).toBe('ORGANIC');
        // No new touch: still the same answer.
        const unchanged = await call('install', { device_id: deviceId, platform: 'android' });
        expect(await body(unchanged)).toEqual(first);
        const { campaignId } = await insertCampaign(db, app.orgId);
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: app.orgId, createdAt: hoursAgo(new Date(), 1), campaignId, ip: null });
        const res = await call('install', { device_id: deviceId, platform: 'android', click_id: clickId });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({
          install_id: first.install_id,
          attribution: { method: 'CLICK_ID', campaign: campaignId, click_id: clickId, deep_link_path: null },
          is_reattribution: true,
        });
        // The window now runs from the re-attribution: an immediate repeat is unchanged.
        const repeat = await body(await call('install', { device_id: deviceId, platform: 'android' }));
        expect(repeat.is_reattribution).toBe(true);
        expect(repeat.attribution.click_id).toBe(clickId);
      });
    });

    describe('error', () => {
      test('400 on validation errors, in the spec shape, and nothing is stored', async () => {
        const app = await newApp();
        const call = sdkCall(t, app.sdkKey);
        const cases: [unknown, string][] = [
          [{ platform: 'android' }, 'device_id'],
          [{ device_id: 'short', platform: 'android' }, 'device_id'],
          [{ device_id: hashedDeviceId(), platform: 'beos' }, 'platform'],
          [{ device_id: hashedDeviceId(), platform: 'android', installed_at: 'yesterday' }, 'installed_at'],
          [{ device_id: hashedDeviceId(), platform: 'android', click_id: 'abc' }, 'click_id'],
          [{ device_id: hashedDeviceId(), platform: 'android', limit_ad_tracking: 'yes' }, 'limit_ad_tracking'],
        ];
        for (const [json, field] of cases) {
          const res = await call('install', json);
          expect(res.status).toBe(400);
          const error = (await body(res)).error;
          expect(Object.keys(error.fieldErrors)).toContain(field);
        }
        const malformed = await t.request('/api/sdk/v1/install', { method: 'POST', headers: { 'x-sdk-key': app.sdkKey, 'content-type': 'application/json' }, body: '{"device_id":' });
        expect(malformed.status).toBe(400);
        const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM installs WHERE app_id = $1', [app.appId]);
        expect(rows[0]!.n).toBe(0);
      });

      test('400 when the SDK key belongs to an app of another platform', async () => {
        const app = await newApp({ platform: 'ios' });
        const res = await sdkCall(t, app.sdkKey)('install', { device_id: hashedDeviceId(), platform: 'android' });
        expect(res.status).toBe(400);
        expect((await body(res)).error).toBeString();
      });
    });

    describe('security', () => {
      test('401 without a key, with an unknown key, with a malformed key', async () => {
        const json = { device_id: hashedDeviceId(), platform: 'android' };
        expect((await t.request('/api/sdk/v1/install', { method: 'POST', json })).status).toBe(401);
        for (const key of [`sk_${'A'.repeat(32)}`, 'svc_live_notansdkkey', '']) {
          const res = await t.request('/api/sdk/v1/install', { method: 'POST', headers: { 'x-sdk-key': key }, json });
          expect(res.status).toBe(401);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
      });

      test("another organization's clicks never attribute, whatever signal matches them", async () => {
        const mine = await newApp();
        const theirs = await newApp();
        const gclid = `Cj0${crypto.randomUUID().replaceAll('-', '')}`;
        const clickId = await insertClick(db, { ...ANDROID_PHONE, ipHasher, orgId: theirs.orgId, ip: '198.51.100.99', createdAt: hoursAgo(new Date(), 1), gclid });
        const res = await sdkCall(t, mine.sdkKey, '198.51.100.99')('install', {
          device_id: hashedDeviceId(),
          platform: 'android',
          click_id: clickId,
          gclid,
          install_referrer: `svc_click_id=${clickId}`,
        });
        expect((await body(res)).attribution.method).toBe('ORGANIC');
      });

      test('a raw device id is hashed and stored nowhere; a SHA-256 hex id is kept as sent', async () => {
        const app = await newApp();
        const raw = `RAW-DEVICE-${crypto.randomUUID()}`;
        await sdkCall(t, app.sdkKey)('install', { device_id: raw, platform: 'android' });
        await sdkCall(t, app.sdkKey)('events', { device_id: raw, events: [{ name: 'session_start' }] });
        const rows = await db.query<{ device_id_hash: string }>('SELECT device_id_hash FROM installs WHERE app_id = $1', [app.appId]);
        expect(rows).toEqual([{ device_id_hash: sha256Hex(raw) }]);
        expect(await tablesContaining(db, raw)).toEqual([]);
        const hashed = hashedDeviceId().toUpperCase();
        await sdkCall(t, app.sdkKey)('install', { device_id: hashed, platform: 'android' });
        const stored = await db.query('SELECT 1 FROM installs WHERE app_id = $1 AND device_id_hash = $2', [app.appId, hashed.toLowerCase()]);
        expect(stored.length).toBe(1);
      });

      test('advertising_id is stored in no column of any table, even with a forwarder configured', async () => {
        const app = await newApp();
        const received: unknown[] = [];
        const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async (req) => (received.push(await req.json()), new Response('ok')) });
        try {
          const put = await t.request(`/api/v1/apps/${app.appId}/forwarder`, { method: 'PUT', headers: app.auth, json: { url: `http://127.0.0.1:${server.port}/conversions` } });
          expect(put.status).toBe(200);
          const advertisingId = crypto.randomUUID().toUpperCase();
          const res = await sdkCall(t, app.sdkKey)('install', { device_id: hashedDeviceId(), platform: 'android', advertising_id: advertisingId, limit_ad_tracking: false });
          expect(res.status).toBe(201);
          await t.services.installForwarder.drain();
          expect(received).toEqual([expect.objectContaining({ advertising_id: advertisingId })]);
          expect(await tablesContaining(db, advertisingId)).toEqual([]);
        } finally {
          server.stop(true);
        }
      });
    });

    describe('CORS and rate limit', () => {
      test('OPTIONS on every SDK endpoint allows any origin; answers carry it too', async () => {
        for (const path of ['install', 'events', 'open', 'push-token', 'subscription', 'ad-revenue']) {
          const res = await t.request(`/api/sdk/v1/${path}`, { method: 'OPTIONS', headers: { origin: 'https://web.example.com', 'access-control-request-method': 'POST' } });
          expect(res.status).toBeLessThan(300);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
        }
        const res = await t.request('/api/sdk/v1/install', { method: 'POST', json: { device_id: hashedDeviceId(), platform: 'android' } });
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
      });

      test('/api/sdk/* is limited to 600 requests per minute per address', async () => {
        const limited = await testApp(db, { TRUST_PROXY: '1', RATE_LIMIT: 'on' }, { mirror: false, workers: false });
        const app = await newApp();
        // 601 calls can take seconds on a busy machine: start them early in a window.
        await awayFromWindowEnd(30_000);
        const call = sdkCall(limited, app.sdkKey, '192.0.2.200');
        const statuses: number[] = [];
        for (let i = 0; i < 601; i += 1) statuses.push((await call('events', { device_id: 'not-valid' })).status);
        expect(statuses.slice(0, 600).every((s) => s === 400)).toBe(true);
        expect(statuses[600]).toBe(429);
        const other = await sdkCall(limited, app.sdkKey, '192.0.2.201')('events', { device_id: 'not-valid' });
        expect(other.status).toBe(400);
      }, 90_000);
    });
  });
}
