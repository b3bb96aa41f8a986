import { afterAll, describe, expect, test } from 'bun:test';
import { createGoogleAdsClient, GoogleAdsAuthError, GoogleAdsError, googleErrorMessage } from '../../../src/protect/sync/google-ads/google-ads.client';
import { createIpBlock, listIpCriteria, removeCriterion } from '../../../src/protect/sync/google-ads/ip-criteria';
import type { GoogleAdsConnection } from '../../../src/protect/sync/integrations.model';
import { startFakeGoogleAds } from './fake-google-ads';

const fake = startFakeGoogleAds({ pageSize: 2 });
afterAll(() => fake.stop());

const endpoints = { apiUrl: fake.env.GOOGLE_ADS_API_URL, tokenUrl: fake.env.GOOGLE_OAUTH_TOKEN_URL };
let customers = 0;
const connection = (overrides: Partial<GoogleAdsConnection> = {}): GoogleAdsConnection => ({
  customerId: String(3_000_000_000 + ++customers),
  loginCustomerId: null,
  developerToken: fake.credentials.developerToken,
  clientId: fake.credentials.clientId,
  clientSecret: fake.credentials.clientSecret,
  refreshToken: fake.credentials.refreshToken,
  ...overrides,
});

/** A server answering every request with `answer` (or never, when it returns undefined). */
function stubServer(answer: () => Response | undefined) {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => answer() ?? new Promise<Response>(() => {}) });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

describe('Google Ads client', () => {
  test('happy: one token exchange as a form POST, then searches paged to the end and a mutate', async () => {
    const account = connection();
    const client = createGoogleAdsClient(endpoints, account);
    for (let index = 1; index <= 5; index += 1) fake.addOwnCriterion(account.customerId, '555', `81.0.0.${index}`);
    const criteria = await listIpCriteria(client, account.customerId, '555');
    expect(criteria.map((item) => item.ipAddress)).toEqual(['81.0.0.1', '81.0.0.2', '81.0.0.3', '81.0.0.4', '81.0.0.5']);
    expect(criteria[0]!.resourceName).toMatch(new RegExp(`^customers/${account.customerId}/campaignCriteria/555~[0-9]+$`));

    const searches = fake.callsFor(account.customerId, 'search');
    expect(searches.map((call) => call.body.pageToken)).toEqual([undefined, '2', '4']);
    expect(searches.every((call) => call.body.query === searches[0]!.body.query)).toBe(true);

    const names = await client.mutateCampaignCriteria(account.customerId, [removeCriterion(criteria[0]!.resourceName), createIpBlock(account.customerId, '555', '45.1.1.1')]);
    expect(names[0]).toBe(criteria[0]!.resourceName);
    expect(names[1]).toMatch(/~[0-9]+$/);
    expect(fake.criteria(account.customerId, '555').map((item) => item.ipAddress)).toEqual(['81.0.0.2', '81.0.0.3', '81.0.0.4', '81.0.0.5', '45.1.1.1']);

    const tokenCalls = fake.calls.filter((call) => call.kind === 'token' && call.body.refresh_token === account.refreshToken);
    expect(tokenCalls.length).toBeGreaterThanOrEqual(1);
    const mutate = fake.callsFor(account.customerId, 'mutate')[0]!;
    expect(mutate.headers.authorization).toMatch(/^Bearer ya29\.fake-[0-9]+$/);
    expect(mutate.headers['developer-token']).toBe(account.developerToken);
    expect(mutate.headers['login-customer-id']).toBeUndefined();
    expect(mutate.body).toEqual({
      operations: [{ remove: criteria[0]!.resourceName }, { create: { campaign: `customers/${account.customerId}/campaigns/555`, negative: true, ipBlock: { ipAddress: '45.1.1.1' } } }],
      partialFailure: false,
    });
  });

  test('happy: the token is fetched once per client; login-customer-id is sent when set', async () => {
    const account = connection({ loginCustomerId: '9998887777' });
    fake.requireLoginCustomer(account.customerId, '9998887777');
    const before = fake.calls.filter((call) => call.kind === 'token').length;
    const client = createGoogleAdsClient(endpoints, account);
    await client.authenticate();
    await client.search(account.customerId, ipQuery('1'));
    await client.search(account.customerId, ipQuery('2'));
    expect(fake.calls.filter((call) => call.kind === 'token').length).toBe(before + 1);
    const token = fake.calls.filter((call) => call.kind === 'token').at(-1)!;
    expect(token.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(token.body).toEqual({ grant_type: 'refresh_token', client_id: account.clientId, client_secret: account.clientSecret, refresh_token: account.refreshToken });
    expect(fake.callsFor(account.customerId, 'search').every((call) => call.headers['login-customer-id'] === '9998887777')).toBe(true);
  });

  test('error: a refused refresh token is a sign-in error with Google’s reason, and no API call follows', async () => {
    const account = connection({ refreshToken: '1//revoked' });
    const client = createGoogleAdsClient(endpoints, account);
    const error = await client.search(account.customerId, ipQuery('1')).catch((caught) => caught);
    expect(error).toBeInstanceOf(GoogleAdsAuthError);
    expect(error.message).toBe('Google sign-in failed: invalid_grant: Token has been expired or revoked.');
    expect(fake.callsFor(account.customerId)).toEqual([]);
    const wrongClient = await createGoogleAdsClient(endpoints, connection({ clientSecret: 'wrong' })).authenticate().catch((caught) => caught);
    expect(wrongClient.message).toBe('Google sign-in failed: invalid_client: The OAuth client was not found.');
  });

  test('error: the API’s own message is surfaced, with its error code and request id', async () => {
    const account = connection();
    fake.failCampaign('777', 'The campaign is not enabled for IP exclusions.');
    const error = await listIpCriteria(createGoogleAdsClient(endpoints, account), account.customerId, '777').catch((caught) => caught);
    expect(error).toBeInstanceOf(GoogleAdsError);
    expect(error).not.toBeInstanceOf(GoogleAdsAuthError);
    expect(error.message).toBe('Google Ads search: INVALID_ARGUMENT INVALID_INPUT: The campaign is not enabled for IP exclusions. (request req-400-invalid_argument)');
    const badToken = await createGoogleAdsClient(endpoints, connection({ developerToken: 'not-approved' })).search(account.customerId, ipQuery('1')).catch((caught) => caught);
    expect(badToken.message).toBe('Google Ads search: UNAUTHENTICATED DEVELOPER_TOKEN_INVALID: The developer token is not valid. (request req-401-unauthenticated)');
  });

  test('error: a duplicate or over-cap mutate is refused whole', async () => {
    const account = connection();
    const client = createGoogleAdsClient(endpoints, account);
    fake.addOwnCriterion(account.customerId, '888', '45.2.2.2');
    const error = await client
      .mutateCampaignCriteria(account.customerId, [createIpBlock(account.customerId, '888', '45.3.3.3'), createIpBlock(account.customerId, '888', '45.2.2.2')])
      .catch((caught) => caught);
    expect(error.message).toContain('CRITERION_ALREADY_EXISTS');
    expect(fake.criteria(account.customerId, '888').map((item) => item.ipAddress)).toEqual(['45.2.2.2']);
  });

  test('error: no answer within the timeout, an unreachable host, a body that is not Google’s', async () => {
    const silent = stubServer(() => undefined);
    const html = stubServer(() => new Response('<html>Bad Gateway</html>', { status: 502 }));
    const short = stubServer(() => Response.json({ results: [] }));
    try {
      const slow = createGoogleAdsClient({ apiUrl: `${silent.url}/v26`, tokenUrl: `${silent.url}/token`, timeoutMs: 200 }, connection());
      expect((await slow.authenticate().catch((caught) => caught)).message).toBe('Google sign-in: no answer within 0.2 s');

      const closed = createGoogleAdsClient({ apiUrl: 'http://127.0.0.1:9/v26', tokenUrl: 'http://127.0.0.1:9/token', timeoutMs: 2000 }, connection());
      expect((await closed.authenticate().catch((caught) => caught)).message).toStartWith('Google sign-in: unreachable (');

      const gateway = createGoogleAdsClient({ apiUrl: `${html.url}/v26`, tokenUrl: fake.env.GOOGLE_OAUTH_TOKEN_URL }, connection());
      expect((await gateway.search('1234567890', ipQuery('1')).catch((caught) => caught)).message).toBe('Google Ads search: HTTP 502');
      const htmlToken = createGoogleAdsClient({ apiUrl: `${html.url}/v26`, tokenUrl: `${html.url}/token` }, connection());
      expect((await htmlToken.authenticate().catch((caught) => caught)).message).toBe('Google sign-in failed: HTTP 502');

      const lossy = createGoogleAdsClient({ apiUrl: `${short.url}/v26`, tokenUrl: fake.env.GOOGLE_OAUTH_TOKEN_URL }, connection());
      const mismatch = await lossy.mutateCampaignCriteria('1234567890', [removeCriterion('customers/1234567890/campaignCriteria/1~2')]).catch((caught) => caught);
      expect(mismatch.message).toBe('Google Ads mutate: answered 0 results for 1 operations');
    } finally {
      await Promise.all([silent.stop(), html.stop(), short.stop()]);
    }
  });

  test('googleErrorMessage: the top message when there are no details', () => {
    expect(googleErrorMessage({ error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } }, 429)).toBe(
      'RESOURCE_EXHAUSTED Resource has been exhausted (e.g. check quota).',
    );
    expect(googleErrorMessage(null, 503)).toBe('HTTP 503');
    expect(googleErrorMessage({ error: 'nope' }, 400)).toBe('HTTP 400');
  });
});

const ipQuery = (campaignId: string) =>
  `SELECT campaign_criterion.resource_name, campaign_criterion.ip_block.ip_address, campaign_criterion.negative FROM campaign_criterion WHERE campaign.id = ${campaignId} AND campaign_criterion.type = IP_BLOCK`;
