import { afterAll, describe, expect, test } from 'bun:test';
import { createInstallForwarder } from '../../src/sdk/forwarder.service';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { sdkCall } from './support';

interface Received {
  path: string;
  host: string | null;
  token: string | null;
  json: any;
}

/** A local ad-platform endpoint: records what arrives and answers with `answer(path)`. */
function platform(answer: (path: string, count: number) => Response | Promise<Response> = () => new Response('ok')) {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const path = new URL(request.url).pathname;
      received.push({ path, host: request.headers.get('host'), token: request.headers.get('x-api-token'), json: await request.json().catch(() => null) });
      return answer(path, received.length);
    },
  });
  servers.push(server);
  return { received, url: `http://127.0.0.1:${server.port}`, port: server.port! };
}
const servers: ReturnType<typeof Bun.serve>[] = [];
afterAll(() => servers.forEach((s) => s.stop(true)));

for (const backend of backends()) {
  describe(`install forwarder on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { POSTBACK_ALLOW_PRIVATE: '1' }, { mirror: false, workers: false });

    async function appWithForwarder(target: string, extra: Record<string, unknown> = {}) {
      const org = await orgWithKey(db);
      const app = await sdkApp(db, org.orgId);
      const put = await t.request(`/api/v1/apps/${app.appId}/forwarder`, { method: 'PUT', headers: org.auth, json: { url: target, ...extra } });
      expect(put.status).toBe(200);
      return { ...org, ...app, call: sdkCall(t, app.sdkKey) };
    }

    describe('PUT /api/v1/apps/{id}/forwarder', () => {
      test('sets and replaces the forwarder, answers without header values, audit logged with the key', async () => {
        const org = await orgWithKey(db);
        const app = await sdkApp(db, org.orgId);
        const put = (json: unknown) => t.request(`/api/v1/apps/${app.appId}/forwarder`, { method: 'PUT', headers: org.auth, json });
        const first = await put({ url: 'https://ads.example.com/conv?token=abc', headers: { 'X-Api-Token': 'secret-value' } });
        expect(first.status).toBe(200);
        const view = await body(first);
        expect(view).toEqual({ app_id: app.appId, url: 'https://ads.example.com/conv?token=abc', enabled: true, header_names: ['X-Api-Token'], updated_at: expect.any(String) });
        expect(JSON.stringify(view)).not.toContain('secret-value');
        expect((await body(await put({ url: 'https://ads.example.com/v2', enabled: false }))).enabled).toBe(false);
        const got = await body(await t.request(`/api/v1/apps/${app.appId}/forwarder`, { headers: org.auth }));
        expect(got).toMatchObject({ url: 'https://ads.example.com/v2', enabled: false, header_names: [] });
        const audit = await db.query<{ api_key_id: string; detail: unknown }>("SELECT api_key_id, detail FROM audit_log WHERE entity = 'app_forwarder' AND entity_id = $1", [app.appId]);
        expect(audit.length).toBe(2);
        expect(audit.every((row) => row.api_key_id === org.keyId)).toBe(true);
        expect(JSON.stringify(audit)).not.toContain('token=abc');
      });

      test('400 for a bad URL or a reserved header; 401 without a key; 404 for an app of another organization', async () => {
        const org = await orgWithKey(db);
        const app = await sdkApp(db, org.orgId);
        const path = `/api/v1/apps/${app.appId}/forwarder`;
        const bad = await t.request(path, { method: 'PUT', headers: org.auth, json: { url: 'ftp://ads.example.com' } });
        expect(bad.status).toBe(400);
        expect((await body(bad)).error.fieldErrors.url).toEqual(['must be an absolute http(s) URL']);
        expect((await t.request(path, { method: 'PUT', headers: org.auth, json: { url: 'https://a.example.com', headers: { Host: 'evil' } } })).status).toBe(400);
        expect((await t.request(path, { method: 'PUT', headers: org.auth, json: { url: 'https://a.example.com', headers: { 'X-A': 'line\r\nbreak' } } })).status).toBe(400);
        expect((await t.request(path, { method: 'PUT', json: { url: 'https://a.example.com' } })).status).toBe(401);
        const stranger = await orgWithKey(db);
        const foreign = await t.request(path, { method: 'PUT', headers: stranger.auth, json: { url: 'https://a.example.com' } });
        expect(foreign.status).toBe(404);
        expect((await t.request(path, { headers: stranger.auth })).status).toBe(404);
        expect(await db.query('SELECT 1 FROM app_forwarders WHERE app_id = $1', [app.appId])).toEqual([]);
      });

      test('private destinations are refused unless POSTBACK_ALLOW_PRIVATE is set', async () => {
        const strict = await testApp(db, {}, { mirror: false, workers: false });
        const org = await orgWithKey(db);
        const app = await sdkApp(db, org.orgId);
        const res = await strict.request(`/api/v1/apps/${app.appId}/forwarder`, { method: 'PUT', headers: org.auth, json: { url: 'http://169.254.169.254/latest' } });
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors.url).toEqual(['must not point to a private address']);
      });
    });

    describe('sending', () => {
      test('an install with an advertising id is forwarded with the configured headers, without delaying the answer', async () => {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const target = platform(async () => (await held, new Response('ok')));
        const app = await appWithForwarder(`${target.url}/app-conversions`, { headers: { 'X-Api-Token': 'tok-123' } });
        const res = await app.call('install', { device_id: hashedDeviceId(), platform: 'android', advertising_id: 'AAAA-BBBB', gclid: 'Cj0abc' });
        // The platform has not answered yet: the SDK got its answer anyway.
        expect(res.status).toBe(201);
        const installId = (await body(res)).install_id;
        release();
        await t.services.installForwarder.drain();
        expect(target.received).toEqual([
          {
            path: '/app-conversions',
            host: `127.0.0.1:${target.port}`,
            token: 'tok-123',
            json: expect.objectContaining({ event: 'install', install_id: installId, app_id: app.appId, platform: 'android', advertising_id: 'AAAA-BBBB', gclid: 'Cj0abc' }),
          },
        ]);
      });

      test('nothing is sent when tracking is limited, without an advertising id, when disabled, or on a repeat', async () => {
        const target = platform();
        const app = await appWithForwarder(target.url);
        const deviceId = hashedDeviceId();
        await app.call('install', { device_id: hashedDeviceId(), platform: 'android', advertising_id: 'LAT', limit_ad_tracking: true });
        await app.call('install', { device_id: deviceId, platform: 'android' });
        await app.call('install', { device_id: deviceId, platform: 'android', advertising_id: 'REPEAT' });
        const off = await appWithForwarder(target.url, { enabled: false });
        await off.call('install', { device_id: hashedDeviceId(), platform: 'android', advertising_id: 'OFF' });
        await t.services.installForwarder.drain();
        expect(target.received).toEqual([]);
      });

      test('redirects are not followed', async () => {
        const target = platform((path) => (path === '/start' ? new Response(null, { status: 302, headers: { location: '/elsewhere' } }) : new Response('ok')));
        const app = await appWithForwarder(`${target.url}/start`);
        await app.call('install', { device_id: hashedDeviceId(), platform: 'android', advertising_id: 'REDIRECT' });
        await t.services.installForwarder.drain();
        expect(target.received.map((r) => r.path)).toEqual(['/start']);
      });

      test('retries on 5xx and gives up on other 4xx; refuses a private target without the switch', async () => {
        const flaky = platform((_, count) => new Response(null, { status: count === 1 ? 503 : 200 }));
        const rejecting = platform(() => new Response(null, { status: 400 }));
        const a = await appWithForwarder(flaky.url);
        const b = await appWithForwarder(rejecting.url);
        const forwarder = createInstallForwarder({ db, config: { postbackAllowPrivate: true }, retryDelaysMs: [5, 5] });
        forwarder.forwardInstall({ orgId: a.orgId, appId: a.appId, payload: { n: 1 } });
        forwarder.forwardInstall({ orgId: b.orgId, appId: b.appId, payload: { n: 2 } });
        await forwarder.drain();
        expect(flaky.received.length).toBe(2);
        expect(rejecting.received.length).toBe(1);

        const strict = createInstallForwarder({ db, config: { postbackAllowPrivate: false }, retryDelaysMs: [5] });
        strict.forwardInstall({ orgId: a.orgId, appId: a.appId, payload: { n: 3 } });
        await strict.stop();
        expect(flaky.received.length).toBe(2);
      });

      test('a name is resolved once and the connection pinned to the checked address', async () => {
        const target = platform();
        const app = await appWithForwarder(`http://ads.forward.test:${target.port}/pinned`);
        const forwarder = createInstallForwarder({ db, config: { postbackAllowPrivate: true }, lookup: async () => ['127.0.0.1'] });
        forwarder.forwardInstall({ orgId: app.orgId, appId: app.appId, payload: { pinned: true } });
        await forwarder.drain();
        expect(target.received).toEqual([{ path: '/pinned', host: `ads.forward.test:${target.port}`, token: null, json: { pinned: true } }]);
      });
    });
  });
}
