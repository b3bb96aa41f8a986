import { describe, expect, test } from 'bun:test';
import { LONE_SURROGATE, MAX_JSON_DEPTH, NOT_JSON, PROTO_NAME, TOO_DEEP } from '../../src/http/json-body';
import { MAX_AMOUNT } from '../../src/http/strict-body';
import { newId } from '../../src/shared/ids';
import { body, TEST_TRACKING_URL, testApp } from '../support/app';
import { clickIdOf } from '../support/clicks';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { sign } from '../edge/support';
import { tablesContaining } from '../sdk/support';
import { PUSH_TOKEN, pubsubEnv, pubsubPush, subscriptionNotification } from '../subscriptions/support';

/**
 * The rules every JSON body is read under (src/http/json-body.ts, docs/http-rules.md "JSON bodies"):
 * bounded nesting, no lone surrogate, no field named __proto__, no form bodies; each refusal a 400
 * (415 for a form) in the spec's shape that stores nothing.
 */
const deepBody = (marker: string, levels = 100_000) => `{"marker":"${marker}","a":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
const ARA = `${TEST_TRACKING_URL}/.well-known/attribution-reporting`;

for (const backend of backends()) {
  describe(`JSON bodies on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { SKAN_VERIFY: 'off', ...pubsubEnv }, { mirror: false, workers: false });
    const org = await orgWithKey(db);
    const app = await sdkApp(db, org.orgId);
    const json = { 'content-type': 'application/json' };
    const sdk = { ...json, 'x-sdk-key': app.sdkKey };
    const api = { ...json, ...org.auth };
    const post = (path: string, headers: Record<string, string>, raw: string, method = 'POST') => t.request(path, { method, headers, body: raw });
    const answer = async (res: Response) => ({ status: res.status, body: await body(res) });
    const fieldError = (field: string, message: string) => ({ error: { formErrors: [], fieldErrors: { [field]: [message] } } });

    describe('nesting', () => {
      test(`a body nested past ${MAX_JSON_DEPTH} levels is the 400 on every reader, and nothing is stored`, async () => {
        const marker = `deep-${newId()}`;
        const raw = deepBody(marker);
        const refused = { status: 400, body: { error: { formErrors: [TOO_DEEP], fieldErrors: {} } } };
        expect(await answer(await post('/api/sdk/v1/events', sdk, raw))).toEqual(refused);
        expect(await answer(await post(`/api/v1/apps/${app.appId}/forwarder`, api, raw, 'PUT'))).toEqual(refused);
        expect(await answer(await post('/api/v1/conversions', api, raw))).toEqual(refused);
        expect(await answer(await post('/api/skan/postback?org=' + org.orgId, { 'content-type': 'text/plain' }, raw))).toEqual(refused);
        expect(await answer(await post('/api/ingest/clicks', { ...json, 'x-svc-signature': sign(t.config.ingestSecret!, raw) }, raw))).toEqual(refused);
        // MCP refuses in JSON-RPC's own terms (docs/mcp.md, "Errors").
        expect(await answer(await post('/api/mcp', { ...api, accept: 'application/json, text/event-stream' }, raw))).toEqual({
          status: 400,
          body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels` } },
        });
        // Reports have a limit of their own, 64 KiB.
        expect(await answer(await post(`${ARA}/report-event-attribution`, json, deepBody(marker, 10_000)))).toEqual(refused);
        expect(await tablesContaining(db, marker)).toEqual([]);
      });

      test(`a body of exactly ${MAX_JSON_DEPTH} levels is read as before`, async () => {
        let params: unknown = 'leaf';
        for (let i = 0; i < MAX_JSON_DEPTH - 4; i++) params = [params];
        const res = await post('/api/sdk/v1/events', sdk, JSON.stringify({ device_id: hashedDeviceId(), events: [{ name: 'deep', params: { nested: params } }] }));
        expect(await answer(res)).toEqual({ status: 200, body: { accepted: 1 } });
      });

      test('a multipart form is a 415: its fields would be parsed as JSON with no bound', async () => {
        const marker = `form-${newId()}`;
        const form = new FormData();
        form.set('device_id', hashedDeviceId());
        form.set('events', `[{"name":"${marker}","params":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}]`);
        const res = await t.request('/api/sdk/v1/events', { method: 'POST', headers: { 'x-sdk-key': app.sdkKey }, body: form });
        expect(await answer(res)).toEqual({ status: 415, body: { error: 'unsupported media type' } });
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(await tablesContaining(db, marker)).toEqual([]);
      });

      test('a urlencoded body is read as JSON under the same rules, never as form fields', async () => {
        const form = { 'content-type': 'application/x-www-form-urlencoded', ...org.auth };
        const destination = `https://example.com/form-${newId()}`;
        const fields = await post('/api/v1/links', form, new URLSearchParams({ destination }).toString());
        expect(await answer(fields)).toEqual({ status: 400, body: { error: { formErrors: [NOT_JSON], fieldErrors: {} } } });
        expect(await tablesContaining(db, destination)).toEqual([]);
        const deep = await post('/api/v1/links', form, deepBody(`form-${newId()}`));
        expect(await answer(deep)).toEqual({ status: 400, body: { error: { formErrors: [TOO_DEEP], fieldErrors: {} } } });
        // What `curl -d '{...}'` sends: JSON declared as a form, taken as the JSON it is.
        const json = await post('/api/v1/links', form, JSON.stringify({ destination }));
        expect(await answer(json)).toMatchObject({ status: 201, body: { destination } });
      });

      test('a string where an object belongs is refused, not read as an object of its characters', async () => {
        const events = await post('/api/sdk/v1/events', sdk, JSON.stringify({ device_id: hashedDeviceId(), events: [{ name: 'x', params: 'abc' }] }));
        expect(await answer(events)).toMatchObject({ status: 400, body: { error: { fieldErrors: { 'events.0.params': expect.any(Array) } } } });
        const forwarder = await post(`/api/v1/apps/${app.appId}/forwarder`, api, JSON.stringify({ url: 'https://ads.example.com/x', headers: 'abc' }), 'PUT');
        expect(await answer(forwarder)).toMatchObject({ status: 400, body: { error: { fieldErrors: { headers: expect.any(Array) } } } });
        const unknown = await post(`/api/v1/apps/${app.appId}/forwarder`, api, JSON.stringify({ url: 'https://ads.example.com/x', header: { a: 'b' } }), 'PUT');
        expect(await answer(unknown)).toEqual({ status: 400, body: fieldError('header', 'unknown field') });
        expect(await db.query('SELECT 1 FROM app_forwarders WHERE app_id = $1', [app.appId])).toEqual([]);
      });
    });

    describe('lone surrogates', () => {
      test('a lone surrogate is a 400 naming the field; nothing is stored', async () => {
        const order = `order-${newId()}`;
        const conversion = await post('/api/v1/conversions', api, `{"gclid":"g-${order}","event":"lead\\ud800","order_id":"${order}"}`);
        expect(await answer(conversion)).toEqual({ status: 400, body: fieldError('event', LONE_SURROGATE) });
        const events = await post('/api/sdk/v1/events', sdk, `{"device_id":"${hashedDeviceId()}","events":[{"name":"${order}"},{"name":"x","params":{"k\\udc00":1}}]}`);
        expect(await answer(events)).toEqual({ status: 400, body: fieldError('events.1.params.k\ufffd', LONE_SURROGATE) });
        expect(await tablesContaining(db, order)).toEqual([]);
      });

      test('a surrogate pair is an ordinary character and is stored as sent', async () => {
        const name = `launch-${newId()}`;
        const res = await post('/api/sdk/v1/events', sdk, `{"device_id":"${hashedDeviceId()}","events":[{"name":"${name}\\ud83d\\ude80"}]}`);
        expect(await answer(res)).toEqual({ status: 200, body: { accepted: 1 } });
        expect(await db.query('SELECT name FROM events WHERE name LIKE $1', [`${name}%`])).toEqual([{ name: `${name}\u{1f680}` }]);
      });

      test('a report is stored as received, each lone surrogate as U+FFFD', async () => {
        const reportId = crypto.randomUUID();
        const res = await post(`${ARA}/report-event-attribution`, json, `{"report_id":"${reportId}","source_event_id":"1","trigger_data":"x\\ud800y","k\\udfff":"v"}`);
        expect(res.status).toBe(200);
        const [row] = await db.query<{ body: Record<string, unknown> }>("SELECT body FROM ara_reports WHERE body->>'report_id' = $1", [reportId]);
        expect(row!.body).toEqual({ report_id: reportId, source_event_id: '1', trigger_data: 'x\ufffdy', 'k\ufffd': 'v' });
      });
    });

    describe('field names', () => {
      test('fields named __proto__, constructor or toString are 400s naming them, unauthenticated routes included', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const clickId = clickIdOf((await t.request(`${TEST_TRACKING_URL}/c/${slug}`)).headers.get('location')!);
        const conversion = { click_id: clickId, event: 'lead' };
        for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
          expect(await answer(await post('/api/v1/conversions', api, JSON.stringify({ ...conversion, [name]: 1 })))).toEqual({ status: 400, body: fieldError(name, 'unknown field') });
        }
        expect(await answer(await post('/api/v1/conversions', api, JSON.stringify(conversion).replace('{', '{"__proto__":{"x":1},')))).toEqual({ status: 400, body: fieldError('__proto__', PROTO_NAME) });
        const postback = { version: '4.0', 'ad-network-id': 'net.example', 'transaction-id': newId(), 'source-identifier': '12', 'app-id': 1 };
        // Apple adds fields over time, so a postback's unknown fields are kept; an object is no postback field.
        const skan = await post(`/api/skan/postback?org=${org.orgId}`, json, JSON.stringify({ ...postback, toString: { a: 1 } }));
        expect(await answer(skan)).toMatchObject({ status: 400, body: { error: { fieldErrors: { toString: expect.any(Array) } } } });
        const push = pubsubPush(subscriptionNotification({ packageName: 'com.example', type: 4, token: 't', at: Date.now() }));
        const google = await post(`/api/subscriptions/google?token=${PUSH_TOKEN}`, json, JSON.stringify(push).replace('"message":{', '"message":{"__proto__":1,'));
        expect(await answer(google)).toEqual({ status: 400, body: fieldError('message.__proto__', PROTO_NAME) });
        expect(await db.query('SELECT 1 FROM conversions WHERE org_id = $1', [org.orgId])).toEqual([]);
      });

      test('in a free-form object those names are ordinary keys, stored as sent', async () => {
        const name = `named-${newId()}`;
        const params = { constructor: 1, toString: 'x', hasOwnProperty: [true] };
        const res = await post('/api/sdk/v1/events', sdk, JSON.stringify({ device_id: hashedDeviceId(), events: [{ name, params }] }));
        expect(await answer(res)).toEqual({ status: 200, body: { accepted: 1 } });
        expect(await db.query('SELECT params FROM events WHERE name = $1', [name])).toEqual([{ params }]);
      });
    });

    describe('amounts', () => {
      test('an amount past the largest is a 400 naming it, and nothing is stored; the largest is taken', async () => {
        const install = await body(await post('/api/sdk/v1/install', sdk, JSON.stringify({ device_id: hashedDeviceId(), platform: 'android' })));
        const { slug } = await insertLink(db, org.orgId);
        const clickId = clickIdOf((await t.request(`${TEST_TRACKING_URL}/c/${slug}`)).headers.get('location')!);
        const day = new Date().toISOString().slice(0, 10);
        const cases = [
          { path: '/api/v1/conversions', headers: api, field: 'value', minimum: 0, build: (amount: number) => ({ click_id: clickId, value: amount, currency: 'USD', order_id: `o-${newId()}` }) },
          { path: '/api/v1/costs', headers: api, field: 'rows.0.spend', minimum: 0, build: (amount: number) => ({ rows: [{ campaign_external_id: `amounts-${newId()}`, day, spend: amount, currency: 'USD' }] }) },
          { path: '/api/sdk/v1/events', headers: sdk, field: 'events.0.value', minimum: -MAX_AMOUNT, message: `must be null or a number from ${-MAX_AMOUNT} to ${MAX_AMOUNT}`, build: (amount: number) => ({ device_id: hashedDeviceId(), install_id: install.install_id, events: [{ name: `amount-${newId()}`, value: amount, currency: 'USD' }] }) },
          { path: '/api/sdk/v1/ad-revenue', headers: sdk, field: 'events.0.revenue', minimum: 0, build: (amount: number) => ({ device_id: hashedDeviceId(), install_id: install.install_id, events: [{ network: `net-${newId()}`, revenue: amount, currency: 'USD' }] }) },
        ];
        for (const { path, headers, field, minimum, message, build } of cases as ((typeof cases)[number] & { message?: string })[]) {
          for (const amount of [1e300, MAX_AMOUNT * 2, minimum - 1]) {
            const sent = JSON.stringify(build(amount));
            const refusal = message ?? `must be a number from ${minimum} to ${MAX_AMOUNT}`;
            expect({ path, amount, ...(await answer(await post(path, headers, sent))) }).toEqual({ path, amount, status: 400, body: fieldError(field, refusal) });
            expect(await tablesContaining(db, sent.match(/"(?:order_id|campaign_external_id|name|network)":"([^"]+)"/)![1]!)).toEqual([]);
          }
          const res = await post(path, headers, JSON.stringify(build(MAX_AMOUNT)));
          expect({ path, status: res.status }).toEqual({ path, status: path === '/api/v1/conversions' ? 201 : 200 });
        }
      });
    });

    describe('integer bounds', () => {
      test('price_micros past 2^53 - 1 is a 400 naming it; up to it is stored', async () => {
        const install = await body(await post('/api/sdk/v1/install', sdk, JSON.stringify({ device_id: hashedDeviceId(), platform: 'android' })));
        const purchase = (price: string) =>
          `{"device_id":"${hashedDeviceId()}","install_id":"${install.install_id}","store":"google","purchase_token":"pt-${newId()}","product_id":"pro","price_micros":${price}}`;
        for (const price of ['1e300', '9223372036854775808', String(Number.MAX_SAFE_INTEGER + 1), '-1']) {
          const res = await post('/api/sdk/v1/subscription', sdk, purchase(price));
          expect({ price, ...(await answer(res)) }).toEqual({ price, status: 400, body: fieldError('price_micros', `must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`) });
        }
        const stored = await body(await post('/api/sdk/v1/subscription', sdk, purchase(String(Number.MAX_SAFE_INTEGER))));
        const [row] = await db.query<{ price_micros: number }>('SELECT price_micros FROM subscriptions WHERE id = $1', [stored.subscription_id]);
        expect(row!.price_micros).toBe(Number.MAX_SAFE_INTEGER);
        expect(await db.query('SELECT 1 FROM subscriptions WHERE app_id = $1', [app.appId])).toHaveLength(1);
      });
    });
  });
}
