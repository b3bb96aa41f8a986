/**
 * One valid request for every operation of the OpenAPI document that takes input, on a fixture
 * organization that owns everything the requests name (test/openapi/hostile-input.test.ts). A
 * valid request answers 2xx (or the status given), so each hostile variant of it changes one
 * field of a request that otherwise reaches the database.
 */
import type { Db } from '../../src/db/db';
import { newId } from '../../src/shared/ids';
import { body, TEST_BASE_URL, TEST_TRACKING_URL, type TestApp } from '../support/app';
import { clickIdOf } from '../support/clicks';
import { cookieOf } from '../support/http';
import { hashedDeviceId } from '../support/sdk-fixtures';
import { sign } from '../edge/support';
import { PUSH_TOKEN, pubsubPush, subscriptionNotification } from '../subscriptions/support';
import { freshCustomerId } from '../protect/support';
import type { FakeGoogleAds } from '../protect/sync/fake-google-ads';
import { ROUTED_RULES as RULES } from '../smartlinks/support';

export interface Credentials {
  apiKey: string;
  sdkKey: string;
  cookie: string;
}

export interface ValidRequest {
  /** Path parameters and query, filled in: `/api/v1/links/01J...?limit=5`. */
  path: string;
  /** A fresh body each call (unique names, slugs, order ids), or none. */
  body?: () => unknown;
  /** The answer of the request as given; 2xx unless said. */
  status?: number;
  /** Credentials of its own, for a request that ends the session it is sent with. */
  credentials?: () => Promise<Credentials>;
}

export interface Fixture {
  credentials: Credentials;
  orgId: string;
  requests: Record<string, ValidRequest>;
  /** The headers a request needs: every credential, and the ingest signature of `raw`. */
  headers(credentials: Credentials, raw: string | undefined): Record<string, string>;
}

const PASSWORD = 'correct horse battery';

async function signUp(t: TestApp): Promise<Credentials & { orgId: string; email: string }> {
  const email = `hostile-${newId().toLowerCase()}@example.com`;
  const registered = await t.request('/register', { method: 'POST', json: { email, password: PASSWORD, organization: 'Hostile' } });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const cookie = cookieOf(registered);
  const orgId = (await body(registered)).org_id as string;
  const key = await body(await t.request('/api/dashboard/keys', { method: 'POST', headers: { cookie }, json: { name: 'hostile' } }));
  const app = await body(await t.request('/api/v1/apps', { method: 'POST', headers: { authorization: `Bearer ${key.api_key}` }, json: { name: 'Hostile app', platform: 'android', bundle_id: `com.hostile.${newId().toLowerCase()}` } }));
  return { orgId, email, cookie, apiKey: key.api_key, sdkKey: app.sdk_key };
}

async function created(t: TestApp, path: string, headers: Record<string, string>, json: unknown): Promise<any> {
  const res = await t.request(path, { method: 'POST', headers, json });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return body(res);
}

export async function validRequests(t: TestApp, db: Db, googleAds: FakeGoogleAds): Promise<Fixture> {
  const me = await signUp(t);
  const auth = { authorization: `Bearer ${me.apiKey}` };
  const session = { cookie: me.cookie, origin: TEST_BASE_URL };
  const packageName = `com.hostile.play.${newId().toLowerCase()}`;
  const app = await created(t, '/api/v1/apps', auth, { name: 'Play app', platform: 'android', bundle_id: packageName });
  const sdk = { 'x-sdk-key': app.sdk_key };
  const campaign = await created(t, '/api/v1/campaigns', auth, { name: 'Hostile campaign', external_id: `ext-${newId()}`, app_id: app.id });
  const link = await created(t, '/api/v1/links', auth, { destination: 'https://shop.example.com/landing', campaign_id: campaign.id });
  const smart = await created(t, '/api/v1/links', auth, { kind: 'smart', destination: 'https://shop.example.com/', rules: RULES });
  const spareKey = await created(t, '/api/dashboard/keys', session, { name: 'spare' });
  const spareLinks = [await created(t, '/api/v1/links', auth, {}), await created(t, '/api/v1/links', auth, {})];
  const destination = await created(t, '/api/v1/postback-destinations', auth, { url: 'http://127.0.0.1:9/spare', events: ['lead'] });
  const redirect = await t.request(`${TEST_TRACKING_URL}/c/${link.slug}`);
  const clickId = clickIdOf(redirect.headers.get('location')!);
  const deviceId = hashedDeviceId();
  const install = await created(t, '/api/sdk/v1/install', sdk, { device_id: deviceId, platform: 'android', click_id: clickId });
  await db.query('UPDATE apps SET bundle_id = $2 WHERE id = $1', [app.id, packageName]);
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const today = new Date().toISOString().slice(0, 10);
  const recently = new Date(Date.now() - 3_600_000).toISOString();
  const ARA = '/.well-known/attribution-reporting';
  const credentials: Credentials = { apiKey: me.apiKey, sdkKey: app.sdk_key, cookie: me.cookie };
  // Erasure requests name subjects of their own: the fixture's device and click stay.
  const erasure = await created(t, '/api/v1/privacy/erasure', auth, { click_id: `gone-${newId()}` });
  // Members and apps of their own for the requests that remove or rotate: the fixture's stay.
  const spareApp = await created(t, '/api/v1/apps', auth, { name: 'Spare app', platform: 'ios' });
  const doomedApp = await created(t, '/api/v1/apps', auth, { name: 'Doomed app', platform: 'ios' });
  const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;
  const spareInvite = await created(t, '/api/dashboard/invites', session, { email: `spare-${newId().toLowerCase()}@example.com`, role: 'analyst' });
  const spareMember = await created(t, '/api/dashboard/invites/accept', { origin: TEST_BASE_URL }, { token: tokenOf(spareInvite.url), password: PASSWORD });
  const doomedMember = await created(t, '/api/dashboard/invites/accept', { origin: TEST_BASE_URL }, {
    token: tokenOf((await created(t, '/api/dashboard/invites', session, { email: `doomed-${newId().toLowerCase()}@example.com`, role: 'analyst' })).url),
    password: PASSWORD,
  });
  const openInvite = await created(t, '/api/dashboard/invites', session, { email: `open-${newId().toLowerCase()}@example.com`, role: 'admin' });
  const withdrawnInvite = await created(t, '/api/dashboard/invites', session, { email: `withdrawn-${newId().toLowerCase()}@example.com`, role: 'admin' });
  const acceptedInvite = await created(t, '/api/dashboard/invites', session, { email: `accepted-${newId().toLowerCase()}@example.com`, role: 'analyst' });

  const requests: Record<string, ValidRequest> = {
    'POST /api/dashboard/apps': {
      path: '/api/dashboard/apps',
      body: () => ({
        name: 'Dashboard app',
        platform: 'ios',
        bundle_id: `com.hostile.ios.${newId().toLowerCase()}`,
        store_url: 'https://apps.apple.com/app/id123456789',
        apple_app_id: '123456789',
        reattribution_days: 30,
        settings: { click_lookback_days: 7, deferred_deeplink_window_hours: 2, probabilistic_window_hours: 24, view_through_window_hours: 24, household_window_hours: 1, skan_enabled: true },
        rate_limit_per_minute: 1_000_000,
      }),
    },
    'GET /api/dashboard/apps': { path: '/api/dashboard/apps?limit=5' },
    'POST /api/dashboard/apps/{id}/rotate-sdk-key': { path: `/api/dashboard/apps/${spareApp.id}/rotate-sdk-key` },
    'DELETE /api/dashboard/apps/{id}': { path: `/api/dashboard/apps/${doomedApp.id}` },
    'GET /api/dashboard/members': { path: '/api/dashboard/members?limit=5' },
    'PATCH /api/dashboard/members/{user_id}': { path: `/api/dashboard/members/${spareMember.user_id}`, body: () => ({ role: 'admin' }) },
    'DELETE /api/dashboard/members/{user_id}': { path: `/api/dashboard/members/${doomedMember.user_id}` },
    'GET /api/dashboard/invites': { path: '/api/dashboard/invites?limit=5' },
    'POST /api/dashboard/invites': { path: '/api/dashboard/invites', body: () => ({ email: `i-${newId().toLowerCase()}@example.com`, role: 'analyst' }) },
    'DELETE /api/dashboard/invites/{id}': { path: `/api/dashboard/invites/${withdrawnInvite.id}` },
    'POST /api/dashboard/invites/accept': { path: '/api/dashboard/invites/accept', body: () => ({ token: tokenOf(acceptedInvite.url), password: PASSWORD }) },
    'GET /api/dashboard/audit': { path: '/api/dashboard/audit?limit=5' },
    'PATCH /api/dashboard/apps/{id}': { path: `/api/dashboard/apps/${app.id}`, body: () => ({ name: 'Play app', rate_limit_per_minute: null }) },
    'GET /api/dashboard/reports/cohorts': { path: `/api/dashboard/reports/cohorts?from=${day}&to=${today}&group_by=campaign,day&days=0,1,7&campaign_id=${campaign.id}&app_id=${app.id}&partner=meta&country=US&platform=android&reattributions=include&activity=sessions` },
    'GET /api/dashboard/export': { path: `/api/dashboard/export?type=clicks&from=${day}&to=${day}` },
    'GET /api/dashboard/reports/breakdown': { path: `/api/dashboard/reports/breakdown?from=${day}&to=${day}&group_by=country,os&partner=meta` },
    'PUT /api/dashboard/integrations/google-ads': {
      path: '/api/dashboard/integrations/google-ads',
      body: () => ({
        customer_id: freshCustomerId(),
        login_customer_id: freshCustomerId(),
        developer_token: googleAds.credentials.developerToken,
        client_id: googleAds.credentials.clientId,
        client_secret: googleAds.credentials.clientSecret,
        refresh_token: googleAds.credentials.refreshToken,
      }),
    },
    'GET /api/dashboard/ippool/lookup': { path: '/api/dashboard/ippool/lookup?ip=8.8.8.8' },
    'POST /api/dashboard/keys': { path: '/api/dashboard/keys', body: () => ({ name: 'another key', rate_limit_per_minute: 1_000_000 }) },
    'GET /api/dashboard/keys': { path: '/api/dashboard/keys?limit=5' },
    'PATCH /api/dashboard/keys/{id}': { path: `/api/dashboard/keys/${spareKey.id}`, body: () => ({ rate_limit_per_minute: 1_000_000 }) },
    'DELETE /api/dashboard/keys/{id}': { path: `/api/dashboard/keys/${spareKey.id}` },
    'POST /api/dashboard/campaigns': { path: '/api/dashboard/campaigns', body: () => ({ name: 'Campaign', external_id: `ext-${newId()}`, app_id: app.id, partner: 'meta' }) },
    'GET /api/dashboard/campaigns': { path: '/api/dashboard/campaigns?limit=5' },
    'PATCH /api/dashboard/campaigns/{id}': { path: `/api/dashboard/campaigns/${campaign.id}`, body: () => ({ name: 'Campaign', partner: 'google_ads', app_id: app.id, status: 'active' }) },
    'PUT /api/dashboard/fx-rates': { path: '/api/dashboard/fx-rates', body: () => ({ rates: [{ day, currency: 'EUR', rate: 1.0825 }] }) },
    'GET /api/dashboard/fx-rates': { path: `/api/dashboard/fx-rates?currency=EUR&from=${day}&to=${day}&limit=5` },
    'POST /api/dashboard/links': { path: '/api/dashboard/links', body: () => linkBody(campaign.id) },
    'GET /api/dashboard/links': { path: '/api/dashboard/links?limit=5&q=shop&sort=-slug' },
    'GET /api/dashboard/links/{id}': { path: `/api/dashboard/links/${link.id}` },
    'PATCH /api/dashboard/links/{id}': { path: `/api/dashboard/links/${smart.id}`, body: () => linkPatch() },
    'DELETE /api/dashboard/links/{id}': { path: `/api/dashboard/links/${spareLinks[0].id}` },
    'GET /api/dashboard/links/{id}/analytics': { path: `/api/dashboard/links/${smart.id}/analytics` },
    'POST /api/dashboard/password': { path: '/api/dashboard/password', body: () => ({ current_password: PASSWORD, new_password: PASSWORD }) },
    'PUT /api/dashboard/protect/settings': { path: '/api/dashboard/protect/settings', body: () => ({ invalid_threshold: 60 }) },
    // The defaults again: the other requests read the organization's zone and currency.
    'PUT /api/dashboard/settings': { path: '/api/dashboard/settings', body: () => ({ timezone: 'UTC', currency: 'USD' }) },
    'POST /api/dashboard/route-test': {
      path: '/api/dashboard/route-test',
      body: () => ({ slug: smart.slug, country: 'DE', region: 'BE', city: 'Berlin', os: 'ios', ua: 'Mozilla/5.0 (iPhone)', ip: '8.8.8.8', language: 'de-DE', timezone: 'Europe/Berlin', hour: 12, params: 'utm_source=news', inApp: 'false' }),
    },
    'POST /api/dashboard/sessions/revoke-all': { path: '/api/dashboard/sessions/revoke-all', credentials: () => signUp(t) },
    'POST /api/ingest/clicks': { path: '/api/ingest/clicks', body: () => ({ events: [{ slug: link.slug, ip: '8.8.4.4', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)', created_at: recently, gclid: `g-${newId()}` }] }) },
    'POST /api/mcp': { path: '/api/mcp', body: () => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_links', arguments: { limit: 5 } } }) },
    'POST /api/protect/beacon': { path: '/api/protect/beacon', body: () => ({ click_id: clickId, fingerprint: 'fp-0123456789', screen: '390x844', timezone: 'Europe/Zurich', languages: 'de-CH,de', webdriver: false, touch: true, dwell_ms: 12_000, scroll: 60 }) },
    'GET /api/protect/export': { path: '/api/protect/export?days=7' },
    'POST /api/protect/sync': { path: '/api/protect/sync' },
    'DELETE /api/dashboard/integrations/google-ads': { path: '/api/dashboard/integrations/google-ads' },
    'POST /api/sdk/v1/ad-revenue': {
      path: '/api/sdk/v1/ad-revenue',
      body: () => ({ device_id: deviceId, install_id: install.install_id, events: [{ network: 'admob', ad_unit: 'unit-1', format: 'banner', placement: 'home', revenue: 0.01, currency: 'USD', precision: 'estimated', source: 'sdk', ts: recently }] }),
    },
    'POST /api/sdk/v1/events': {
      path: '/api/sdk/v1/events',
      body: () => ({ device_id: deviceId, install_id: install.install_id, events: [{ name: 'purchase', value: 9.99, currency: 'EUR', params: { sku: 'pro', count: 2 }, occurred_at: recently }] }),
    },
    'POST /api/sdk/v1/install': {
      path: '/api/sdk/v1/install',
      body: () => ({
        device_id: hashedDeviceId(),
        platform: 'android',
        os_version: '14',
        app_version: '2.1.0',
        sdk_version: '1.0.0',
        click_id: clickId,
        install_referrer: `utm_source=google&svc_click_id=${clickId}`,
        gclid: 'gclid-hostile',
        installed_at: recently,
        locale: 'de-DE',
        timezone: 'Europe/Berlin',
        advertising_id: '38400000-8cf0-11bd-b23e-10b96e40000d',
        limit_ad_tracking: false,
        apple_attribution_token: null,
        ttclid: 'ttclid-1',
        sc_click_id: 'sc-1',
      }),
    },
    'POST /api/sdk/v1/open': { path: '/api/sdk/v1/open', body: () => ({ device_id: deviceId, click_id: clickId, url: `myapp://open?svc_click_id=${clickId}`, occurred_at: recently }) },
    'POST /api/sdk/v1/forget': { path: '/api/sdk/v1/forget', body: () => ({ device_id: hashedDeviceId() }), status: 202 },
    'POST /api/v1/privacy/erasure': { path: '/api/v1/privacy/erasure', body: () => ({ ip: '192.0.2.1', from: day, to: today }), status: 202 },
    'GET /api/v1/privacy/erasure/{id}': { path: `/api/v1/privacy/erasure/${erasure.id}` },
    'POST /api/sdk/v1/push-token': { path: '/api/sdk/v1/push-token', body: () => ({ device_id: deviceId, push_token: `push-${newId()}`, platform: 'android' }) },
    'POST /api/sdk/v1/subscription': {
      path: '/api/sdk/v1/subscription',
      body: () => ({
        device_id: deviceId,
        install_id: install.install_id,
        store: 'google',
        original_transaction_id: `otid-${newId()}`,
        purchase_token: `pt-${newId()}`,
        product_id: 'pro.monthly',
        is_trial: false,
        price_micros: 2_490_000,
        currency: 'EUR',
        expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        occurred_at: recently,
      }),
    },
    'POST /api/skan/postback': {
      path: `/api/skan/postback?org=${me.orgId}`,
      body: () => ({
        version: '4.0',
        'ad-network-id': 'net.example',
        'transaction-id': newId(),
        'app-id': 987654321,
        'source-identifier': '5239',
        'source-domain': 'example.com',
        'conversion-value': 20,
        'fidelity-type': 1,
        'did-win': true,
        redownload: false,
        'postback-sequence-index': 0,
        'attribution-signature': 'MEUCIQDDetUtkyc/MiQvVJ5I6HIO1E7l598572Wljot2Onzd4wIgVJLzVcyAV',
      }),
    },
    // No App Store chain ends at the test's roots: a well-formed payload is refused as unsigned.
    'POST /api/subscriptions/apple': { path: '/api/subscriptions/apple', body: () => ({ signedPayload: 'eyJhbGciOiJFUzI1NiJ9.eyJub3RpZmljYXRpb25UeXBlIjoiVEVTVCJ9.c2ln' }), status: 400 },
    'POST /api/subscriptions/google': {
      path: `/api/subscriptions/google?token=${PUSH_TOKEN}`,
      body: () => pubsubPush(subscriptionNotification({ packageName, type: 4, token: `tok-${newId()}`, at: Date.now() - 60_000 })),
    },
    'POST /api/v1/apps': {
      path: '/api/v1/apps',
      body: () => ({ name: 'API app', platform: 'android', bundle_id: `com.hostile.api.${newId().toLowerCase()}`, store_url: 'https://play.google.com/store/apps/details?id=com.hostile', apple_app_id: null, reattribution_days: 60, settings: { click_lookback_days: 14 } }),
    },
    'GET /api/v1/apps': { path: '/api/v1/apps?limit=5' },
    'GET /api/v1/apps/{id}': { path: `/api/v1/apps/${app.id}` },
    'PATCH /api/v1/apps/{id}': {
      path: `/api/v1/apps/${app.id}`,
      body: () => ({ name: 'Play app', store_url: 'https://play.google.com/store/apps/details?id=com.hostile', apple_app_id: '42', reattribution_days: 90, settings: { click_lookback_days: 30, view_through_window_hours: 12, skan_enabled: false }, rate_limit_per_minute: null }),
    },
    'PUT /api/v1/apps/{id}/forwarder': { path: `/api/v1/apps/${app.id}/forwarder`, body: () => ({ url: 'http://127.0.0.1:9/forward', enabled: true, headers: { 'X-Api-Token': 'secret-value' } }) },
    'GET /api/v1/apps/{id}/forwarder': { path: `/api/v1/apps/${app.id}/forwarder` },
    'POST /api/v1/campaigns': { path: '/api/v1/campaigns', body: () => ({ name: 'Campaign', external_id: `ext-${newId()}`, app_id: app.id, skan_source_identifier: 17 }) },
    'GET /api/v1/campaigns': { path: '/api/v1/campaigns?limit=5' },
    'GET /api/v1/campaigns/{id}': { path: `/api/v1/campaigns/${campaign.id}` },
    'PATCH /api/v1/campaigns/{id}': { path: `/api/v1/campaigns/${campaign.id}`, body: () => ({ name: 'Campaign', partner: 'google_ads' }) },
    'GET /api/v1/clicks': { path: `/api/v1/clicks?limit=5&since=${day}&gclid=g-1` },
    'POST /api/v1/conversions': { path: '/api/v1/conversions', body: () => ({ click_id: clickId, event: 'purchase', value: 19.5, currency: 'EUR', order_id: `o-${newId()}` }) },
    'GET /api/v1/conversions': { path: '/api/v1/conversions?limit=5' },
    'POST /api/v1/costs': { path: '/api/v1/costs', body: () => ({ rows: [{ campaign_id: campaign.id, day, spend: 12.5, currency: 'EUR', impressions: 1000 }] }) },
    'PUT /api/v1/fx-rates': { path: '/api/v1/fx-rates', body: () => ({ rates: [{ day, currency: 'EUR', rate: 1.0825 }] }) },
    'GET /api/v1/fx-rates': { path: `/api/v1/fx-rates?currency=EUR&from=${day}&to=${day}&limit=5` },
    'PUT /api/v1/settings': { path: '/api/v1/settings', body: () => ({ timezone: 'UTC', currency: 'USD' }) },
    'GET /api/v1/domains': { path: '/api/v1/domains?limit=5' },
    // A name no resolver is asked about: the route reads no body, so there is nothing to store.
    'POST /api/v1/domains/{domain}/verify': { path: '/api/v1/domains/-not-a-host-/verify', status: 400 },
    'POST /api/v1/impressions': {
      path: '/api/v1/impressions',
      body: () => ({
        impressions: [
          { campaign_id: campaign.id, app_id: app.id, partner: 'network-1', creative_id: 'cr-1', placement: 'feed', ip: '8.8.8.8', user_agent: 'Mozilla/5.0 (Linux; Android 14)', os: 'android', device_type: 'phone', country: 'DE', ts: recently },
        ],
      }),
    },
    'POST /api/v1/links': { path: '/api/v1/links', body: () => linkBody(campaign.id) },
    'GET /api/v1/links': { path: '/api/v1/links?limit=5&q=shop&kind=tracking&status=active&sort=created_at' },
    'GET /api/v1/links/{id}': { path: `/api/v1/links/${link.id}` },
    'PATCH /api/v1/links/{id}': { path: `/api/v1/links/${smart.id}`, body: () => linkPatch() },
    'DELETE /api/v1/links/{id}': { path: `/api/v1/links/${spareLinks[1].id}` },
    'GET /api/v1/postback-deliveries': { path: `/api/v1/postback-deliveries?limit=5&status=pending&conversion_id=c1&destination_id=${destination.id}` },
    'POST /api/v1/postback-destinations': { path: '/api/v1/postback-destinations', body: () => ({ url: 'http://127.0.0.1:9/hook', method: 'POST', events: ['purchase'], secret: 'shared-secret-0123456789' }) },
    'GET /api/v1/postback-destinations': { path: '/api/v1/postback-destinations?limit=5' },
    'DELETE /api/v1/postback-destinations/{id}': { path: `/api/v1/postback-destinations/${destination.id}` },
    'GET /api/v1/skan-postbacks': { path: '/api/v1/skan-postbacks?limit=5' },
    'GET /api/v1/subscriptions': { path: '/api/v1/subscriptions?limit=5' },
    'POST /api/v1/tv-airings': {
      path: '/api/v1/tv-airings',
      body: () => ({
        airings: [{ network: 'Channel One', program: 'News', region: 'DE-BE', aired_at: recently, spot_length_sec: 30, cost: 5000, campaign_id: campaign.id, window_min: 10 }],
      }),
    },
    'GET /api/v1/tv-airings': { path: '/api/v1/tv-airings?limit=5' },
    'GET /api/v1/reports/breakdown': { path: `/api/v1/reports/breakdown?from=${day}&to=${day}&group_by=campaign&campaign_id=${campaign.id}&app_id=${app.id}&country=DE&platform=android` },
    'GET /api/v1/reports/cohorts': { path: `/api/v1/reports/cohorts?from=${day}&to=${today}&group_by=campaign,day&days=0,1,7&campaign_id=${campaign.id}&app_id=${app.id}&partner=meta&country=US&platform=android&reattributions=include&activity=sessions` },
    'GET /api/v1/uninstalls': { path: `/api/v1/uninstalls?app_id=${app.id}&from=${day}&to=${today}` },
    'GET /campaigns': { path: `/campaigns?from=${day}&to=${day}&campaign_id=${campaign.id}&partner=meta&country=DE&platform=android&group_by=country&cohort_by=campaign` },
    'GET /campaigns/{id}': { path: `/campaigns/${campaign.id}` },
    'GET /links': { path: `/links?q=shop&kind=tracking&status=active&campaign_id=${campaign.id}&domain=&sort=slug` },
    'GET /apps': { path: '/apps' },
    'GET /keys': { path: '/keys' },
    'GET /members': { path: '/members' },
    'GET /audit': { path: '/audit' },
    'GET /invite/{token}': { path: `/invite/${tokenOf(openInvite.url)}` },
    'GET /invalid-clicks': { path: '/invalid-clicks?days=7' },
    'GET /links/{id}': { path: `/links/${link.id}` },
    'GET /links/{id}/qr.svg': { path: `/links/${link.id}/qr.svg` },
    'GET /links/{id}/qr.png': { path: `/links/${link.id}/qr.png` },
    'POST /login': { path: '/login', body: () => ({ email: me.email, password: PASSWORD }) },
    'POST /logout': { path: '/logout', credentials: () => signUp(t) },
    'GET /postback': { path: `/postback?api_key=${me.apiKey}&click_id=${clickId}&event=lead&value=3&currency=EUR&order_id=p-1` },
    'POST /postback': { path: `/postback?api_key=${me.apiKey}&click_id=${clickId}&event=lead&value=3&currency=EUR&order_id=p-2` },
    'POST /register': { path: '/register', body: () => ({ email: `r-${newId().toLowerCase()}@example.com`, password: PASSWORD, organization: 'Registered' }) },
    [`GET ${ARA}/register-source`]: { path: `${TEST_TRACKING_URL}${ARA}/register-source?link=${link.slug}` },
    [`GET ${ARA}/register-trigger`]: { path: `${TEST_TRACKING_URL}${ARA}/register-trigger?event=purchase&value=20` },
    [`POST ${ARA}/report-event-attribution`]: { path: `${TEST_TRACKING_URL}${ARA}/report-event-attribution`, body: () => eventReport() },
    [`POST ${ARA}/report-aggregate-attribution`]: { path: `${TEST_TRACKING_URL}${ARA}/report-aggregate-attribution`, body: () => ({ shared_info: '{"api":"attribution-reporting"}', aggregation_service_payloads: [{ payload: 'ZW5j', key_id: 'k1' }] }) },
    [`POST ${ARA}/debug/*`]: { path: `${TEST_TRACKING_URL}${ARA}/debug/verbose`, body: () => [{ type: 'trigger-no-matching-source', body: eventReport() }] },
    'GET /c/{slug}': { path: `${TEST_TRACKING_URL}/c/${link.slug}?url=${encodeURIComponent('https://shop.example.com/x')}&gclid=g-1`, status: 302 },
    'GET /l/{slug}': { path: `${TEST_TRACKING_URL}/l/${smart.slug}?gclid=g-2&utm_source=news`, status: 302 },
    'GET /i/{campaign}': { path: `${TEST_TRACKING_URL}/i/${campaign.id}?app=${app.id}&cr=cr-1&pl=feed&p=network-1` },
  };

  return {
    credentials,
    orgId: me.orgId,
    requests,
    headers: (given, raw) => ({
      authorization: `Bearer ${given.apiKey}`,
      'x-sdk-key': given.sdkKey,
      cookie: given.cookie,
      origin: TEST_BASE_URL,
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) hostile-input/1.0',
      ...(raw !== undefined ? { 'content-type': 'application/json', 'x-svc-signature': sign(t.config.ingestSecret ?? '', raw) } : {}),
    }),
  };
}

function linkBody(campaignId: string) {
  return {
    slug: `h${newId().slice(-12).toLowerCase()}`,
    kind: 'smart',
    campaign_id: campaignId,
    ...linkPatch(),
  };
}

/** A smart link's fields: only those take a preview and pass parameters on. */
function linkPatch() {
  return {
    destination: 'https://shop.example.com/landing',
    domain: null,
    status: 'active',
    expires_at: '2099-01-01T00:00:00Z',
    click_cap: 100_000,
    rules: { version: 1, rules: [{ name: 'ios', if: { os: ['ios'] }, then: { url: 'https://ios.example.com/' } }] },
    pass_params: true,
    preview: { title: 'Title', description: 'Description', image: 'https://img.example.com/a.png' },
    deep_link_path: '/product/1',
    allowed_landing_hosts: ['shop.example.com', '*.example.org'],
  };
}

function eventReport() {
  return {
    attribution_destination: 'https://example.com',
    source_event_id: '12345',
    trigger_data: '3',
    report_id: crypto.randomUUID(),
    source_type: 'navigation',
    randomized_trigger_rate: 0.0024,
    scheduled_report_time: '1700000000',
  };
}
