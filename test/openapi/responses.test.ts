import { describe, expect, test } from 'bun:test';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CreatedKeyBody, KeyListBody, KeyRevokedBody, OkBody, SessionsEndedBody, SignedInBody } from '../../src/auth/auth.model';
import { ConversionListBody, ConversionResultBody } from '../../src/conversions/conversions.model';
import { CostsResultBody } from '../../src/costs/costs.model';
import { ListFxRatesAnswer, PutFxRatesAnswer } from '../../src/fx-rates/fx-rates.model';
import { SettingsAnswer } from '../../src/settings/settings.model';
import { RealtimeBody } from '../../src/dashboard/realtime/realtime.model';
import { IngestResultBody } from '../../src/edge/ingest.model';
import { MAX_BODY_BYTES } from '../../src/http/http.plugin';
import { JsonRpcErrorBody } from '../../src/mcp/mcp.docs';
import { ErrorBody, RateLimitedBody, ValidationErrorBody } from '../../src/openapi/error-bodies';
import { HealthBody } from '../../src/health/health.routes';
import { AdRevenueResultBody, EventsResultBody, InstallResponseBody, OpenResultBody, PushTokenResultBody, SubscriptionResultBody } from '../../src/sdk/sdk.model';
import { RouteTestResultBody } from '../../src/smartlinks/route-test.model';
import { body, TEST_TRACKING_URL, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign } from '../support/fixtures';
import { hashedDeviceId } from '../support/sdk-fixtures';
import { ingest } from '../edge/support';
import { registerAccount } from '../protect/support';

/**
 * The response models the OpenAPI document shows (src/http/documented.ts) are documentation
 * only, so they are checked here against real answers of each endpoint.
 */
async function expectShape(schema: TSchema, response: Response, status: number): Promise<any> {
  const json = await body(response);
  expect({ status: response.status, json }).toMatchObject({ status });
  const errors = [...Value.Errors(schema, json)].map((error) => `${error.path}: ${error.message}`);
  expect(errors).toEqual([]);
  return json;
}

const ORIGIN = 'http://api.test.local';

for (const backend of backends()) {
  describe(`documented answers match real ones on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });

    test('session, keys, conversions, costs, edge ingest, health, route test and realtime', async () => {
      const email = `doc-${Date.now()}@example.com`;
      const registered = await t.request('/register', { method: 'POST', json: { email, password: 'correct horse', organization: 'Docs' } });
      await expectShape(SignedInBody, registered, 201);
      const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
      const session = { cookie, origin: ORIGIN };
      await expectShape(SignedInBody, await t.request('/login', { method: 'POST', json: { email, password: 'correct horse' } }), 200);
      const key = await expectShape(CreatedKeyBody, await t.request('/api/dashboard/keys', { method: 'POST', headers: session, json: { name: 'docs' } }), 201);
      await expectShape(KeyListBody, await t.request('/api/dashboard/keys', { headers: session }), 200);
      const auth = { authorization: `Bearer ${key.api_key}` };

      const link = await body(await t.request('/api/dashboard/links', { method: 'POST', headers: session, json: { destination: 'https://shop.example.com/', slug: `doc${Date.now()}` } }));
      const redirect = await t.request(`${TEST_TRACKING_URL}/c/${link.slug}`);
      const clickId = new URL(redirect.headers.get('location')!).searchParams.get('svc_click_id')!;
      await expectShape(ConversionResultBody, await t.request('/api/v1/conversions', { method: 'POST', headers: auth, json: { click_id: clickId, value: 5, currency: 'EUR', order_id: 'o1' } }), 201);
      await expectShape(ConversionResultBody, await t.request(`/postback?api_key=${key.api_key}&gclid=unknown-gclid&event=lead`), 200);
      const list = await expectShape(ConversionListBody, await t.request('/api/v1/conversions', { headers: auth }), 200);
      expect(list.data).toHaveLength(2);

      const orgId = (await body(await t.request('/api/dashboard/apps', { headers: session }))) && (await db.query<{ org_id: string }>('SELECT org_id FROM users WHERE lower(email) = $1', [email]))[0]!.org_id;
      const { campaignId } = await insertCampaign(db, orgId);
      await expectShape(CostsResultBody, await t.request('/api/v1/costs', { method: 'POST', headers: auth, json: { rows: [{ campaign_id: campaignId, day: '2026-08-10', spend: 3 }] } }), 200);
      await expectShape(SettingsAnswer, await t.request('/api/v1/settings', { method: 'PUT', headers: auth, json: { timezone: 'Europe/Berlin' } }), 200);
      await expectShape(SettingsAnswer, await t.request('/api/dashboard/settings', { headers: session }), 200);
      await expectShape(PutFxRatesAnswer, await t.request('/api/v1/fx-rates', { method: 'PUT', headers: auth, json: { rates: [{ day: '2026-08-10', currency: 'EUR', rate: 1.1 }] } }), 200);
      await expectShape(ListFxRatesAnswer, await t.request('/api/v1/fx-rates?currency=EUR', { headers: auth }), 200);

      await expectShape(IngestResultBody, await ingest(t, [{ slug: link.slug }, { slug: 'no-such-link-x' }]), 200);
      await expectShape(HealthBody, await t.request('/api/health'), 200);

      const smart = await body(await t.request('/api/dashboard/links', { method: 'POST', headers: session, json: { kind: 'smart', destination: 'https://shop.example.com/', slug: `docs${Date.now()}` } }));
      const tested = await expectShape(RouteTestResultBody, await t.request('/api/dashboard/route-test', { method: 'POST', headers: session, json: { slug: smart.slug, ip: '8.8.8.8', os: 'ios' } }), 200);
      expect(tested.pool).not.toBeNull();
      await expectShape(RealtimeBody, await t.request('/api/dashboard/realtime', { headers: session }), 200);

      await expectShape(KeyRevokedBody, await t.request(`/api/dashboard/keys/${key.id}`, { method: 'DELETE', headers: session }), 200);
      await expectShape(SessionsEndedBody, await t.request('/api/dashboard/password', { method: 'POST', headers: session, json: { current_password: 'correct horse', new_password: 'correct horse 2' } }), 200);
      await expectShape(OkBody, await t.request('/logout', { method: 'POST', headers: session }), 200);
      const again = (await t.request('/login', { method: 'POST', json: { email, password: 'correct horse 2' } })).headers.get('set-cookie')!.split(';')[0]!;
      await expectShape(SessionsEndedBody, await t.request('/api/dashboard/sessions/revoke-all', { method: 'POST', headers: { cookie: again, origin: ORIGIN } }), 200);
    });

    test('the SDK answers', async () => {
      const me = await registerAccount(t);
      const app = await body(await t.request('/api/dashboard/apps', { method: 'POST', headers: { cookie: me.cookie, origin: ORIGIN }, json: { name: 'Docs app', platform: 'android' } }));
      const sdk = { 'x-sdk-key': app.sdk_key };
      const deviceId = hashedDeviceId();
      const install = await expectShape(InstallResponseBody, await t.request('/api/sdk/v1/install', { method: 'POST', headers: sdk, json: { device_id: deviceId, platform: 'android' } }), 201);
      await expectShape(InstallResponseBody, await t.request('/api/sdk/v1/install', { method: 'POST', headers: sdk, json: { device_id: deviceId, platform: 'android' } }), 200);
      await expectShape(EventsResultBody, await t.request('/api/sdk/v1/events', { method: 'POST', headers: sdk, json: { device_id: deviceId, events: [{ name: 'purchase', value: 3, currency: 'EUR' }] } }), 200);
      await expectShape(OpenResultBody, await t.request('/api/sdk/v1/open', { method: 'POST', headers: sdk, json: { device_id: deviceId } }), 200);
      await expectShape(PushTokenResultBody, await t.request('/api/sdk/v1/push-token', { method: 'POST', headers: sdk, json: { device_id: deviceId, push_token: 'token-1', platform: 'android' } }), 200);
      await expectShape(
        SubscriptionResultBody,
        await t.request('/api/sdk/v1/subscription', { method: 'POST', headers: sdk, json: { device_id: deviceId, install_id: install.install_id, store: 'google', purchase_token: 'pt-1', product_id: 'pro' } }),
        200,
      );
      await expectShape(AdRevenueResultBody, await t.request('/api/sdk/v1/ad-revenue', { method: 'POST', headers: sdk, json: { device_id: deviceId, events: [{ network: 'admob', revenue: 0.01 }] } }), 200);
    });

    test('real refusals match the documented error bodies', async () => {
      const me = await registerAccount(t);
      const session = { cookie: me.cookie, origin: ORIGIN };
      const key = await body(await t.request('/api/dashboard/keys', { method: 'POST', headers: session, json: { name: 'refusals' } }));
      const auth = { authorization: `Bearer ${key.api_key}` };
      await expectShape(ValidationErrorBody, await t.request('/api/v1/links', { method: 'POST', headers: auth, json: { destinaton: 'https://shop.example.com/' } }), 400);
      await expectShape(ErrorBody, await t.request('/api/v1/links'), 401);
      await expectShape(ErrorBody, await t.request('/api/v1/links/no-such-link', { headers: auth }), 404);
      await expectShape(ErrorBody, await t.request('/api/dashboard/keys', { method: 'POST', headers: { ...session, origin: 'https://elsewhere.example' }, json: { name: 'x' } }), 403);
      await expectShape(ErrorBody, await t.request('/logout', { method: 'POST', headers: { ...session, 'content-type': 'text/plain' }, body: 'x' }), 415);
      // A GET too: the body limit is the HTTP rules', before routing.
      await expectShape(ErrorBody, await t.request('/favicon.ico', { headers: { 'content-length': String(MAX_BODY_BYTES + 1) } }), 413);
      await expectShape(JsonRpcErrorBody, await t.request('/api/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' }), 400);
    });
  });
}

describe('the documented 429', async () => {
  const db = await backends()[0]!.create();
  const t = await testApp(db, { RATE_LIMIT: 'on' }, { mirror: false, workers: false });

  test('is the RateLimited component, with Retry-After', async () => {
    let response: Response | undefined;
    for (let i = 0; i < 25 && response?.status !== 429; i++) {
      response = await t.request('/login');
    }
    const json = await expectShape(RateLimitedBody, response!, 429);
    expect(response!.headers.get('retry-after')).toBe(String(json.retry_after));
  });
});
