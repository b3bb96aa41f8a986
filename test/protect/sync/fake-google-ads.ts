/**
 * A local stand-in for Google's OAuth token endpoint and the two Google Ads REST methods the sync
 * calls (googleAds:search, campaignCriteria:mutate). It checks credentials and headers as Google
 * does, keeps each campaign's IP criteria, applies a mutate atomically, records every call, and can
 * fail one campaign, page its answers, or hold searches until released.
 */
import ipaddr from 'ipaddr.js';

export interface FakeCredentials {
  developerToken: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

export interface RecordedCall {
  kind: 'token' | 'search' | 'mutate';
  customerId: string | null;
  headers: Record<string, string>;
  body: any;
}

export interface FakeCriterion {
  resourceName: string;
  ipAddress: string;
}

export interface FakeGoogleAds {
  /** GOOGLE_ADS_API_URL and GOOGLE_OAUTH_TOKEN_URL pointing here. */
  env: { GOOGLE_ADS_API_URL: string; GOOGLE_OAUTH_TOKEN_URL: string };
  credentials: FakeCredentials;
  calls: RecordedCall[];
  callsFor(customerId: string, kind?: RecordedCall['kind']): RecordedCall[];
  criteria(customerId: string, campaignId: string): FakeCriterion[];
  /** A criterion the advertiser made in Google Ads itself. */
  addOwnCriterion(customerId: string, campaignId: string, ipAddress: string): string;
  /** The advertiser deletes a criterion in Google Ads. */
  deleteCriterion(customerId: string, resourceName: string): void;
  /** Searches, mutates or both touching this campaign answer Google's error with `message`. */
  failCampaign(campaignId: string, message: string, on?: 'search' | 'mutate' | 'both'): void;
  /** The customer's login-customer-id header must be this (a manager account). */
  requireLoginCustomer(customerId: string, loginCustomerId: string): void;
  /** Searches wait until the returned function is called. */
  holdSearches(): () => void;
  stop(): Promise<void>;
}

const API_PATH = /^\/v26\/customers\/([0-9]+)\/(googleAds:search|campaignCriteria:mutate)$/;

export function startFakeGoogleAds(options: { credentials?: Partial<FakeCredentials>; pageSize?: number; cap?: number } = {}): FakeGoogleAds {
  const credentials: FakeCredentials = {
    developerToken: 'dev-token-fake',
    clientId: 'client-id.apps.googleusercontent.com',
    clientSecret: 'GOCSPX-fake-client-secret',
    refreshToken: '1//fake-refresh-token',
    ...options.credentials,
  };
  const pageSize = options.pageSize ?? 10_000;
  const cap = options.cap ?? 500;
  const calls: RecordedCall[] = [];
  const tokens = new Set<string>();
  /** customer -> campaign -> criteria, in creation order. */
  const accounts = new Map<string, Map<string, FakeCriterion[]>>();
  const failing = new Map<string, { message: string; on: 'search' | 'mutate' | 'both' }>();
  const failure = (campaignId: string, call: 'search' | 'mutate') => {
    const set = failing.get(campaignId);
    return set && (set.on === 'both' || set.on === call) ? set.message : undefined;
  };
  const loginCustomers = new Map<string, string>();
  let nextCriterionId = 1000;
  let hold: Promise<void> | undefined;

  const campaignCriteria = (customerId: string, campaignId: string) => {
    const campaigns = accounts.get(customerId) ?? new Map<string, FakeCriterion[]>();
    accounts.set(customerId, campaigns);
    const list = campaigns.get(campaignId) ?? [];
    campaigns.set(campaignId, list);
    return list;
  };
  const newCriterion = (customerId: string, campaignId: string, ipAddress: string): FakeCriterion => ({
    resourceName: `customers/${customerId}/campaignCriteria/${campaignId}~${nextCriterionId++}`,
    ipAddress,
  });

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      const headers = Object.fromEntries(request.headers.entries());
      if (url.pathname === '/token') {
        const form = new URLSearchParams(await request.text());
        calls.push({ kind: 'token', customerId: null, headers, body: Object.fromEntries(form) });
        if (request.headers.get('content-type') !== 'application/x-www-form-urlencoded' || form.get('grant_type') !== 'refresh_token') {
          return Response.json({ error: 'unsupported_grant_type', error_description: 'Invalid grant_type' }, { status: 400 });
        }
        if (form.get('client_id') !== credentials.clientId || form.get('client_secret') !== credentials.clientSecret) {
          return Response.json({ error: 'invalid_client', error_description: 'The OAuth client was not found.' }, { status: 401 });
        }
        if (form.get('refresh_token') !== credentials.refreshToken) {
          return Response.json({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }, { status: 400 });
        }
        const token = `ya29.fake-${tokens.size + 1}`;
        tokens.add(token);
        return Response.json({ access_token: token, expires_in: 3599, token_type: 'Bearer', scope: 'https://www.googleapis.com/auth/adwords' });
      }
      const match = request.method === 'POST' ? url.pathname.match(API_PATH) : null;
      if (!match) return Response.json({ error: { code: 404, message: 'not found', status: 'NOT_FOUND' } }, { status: 404 });
      const [, customerId, method] = match as unknown as [string, string, string];
      const body: any = await request.json().catch(() => null);
      calls.push({ kind: method === 'googleAds:search' ? 'search' : 'mutate', customerId, headers, body });

      const bearer = request.headers.get('authorization')?.match(/^Bearer (.+)$/)?.[1];
      if (!bearer || !tokens.has(bearer)) return googleError(401, 'UNAUTHENTICATED', { authenticationError: 'AUTHENTICATION_ERROR' }, 'Authentication of the request failed.');
      if (request.headers.get('developer-token') !== credentials.developerToken) {
        return googleError(401, 'UNAUTHENTICATED', { authenticationError: 'DEVELOPER_TOKEN_INVALID' }, 'The developer token is not valid.');
      }
      const login = loginCustomers.get(customerId);
      if (login !== undefined && request.headers.get('login-customer-id') !== login) {
        return googleError(403, 'PERMISSION_DENIED', { authorizationError: 'USER_PERMISSION_DENIED' }, "User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer id must be set in the 'login-customer-id' header.");
      }
      if (method === 'googleAds:search') return search(customerId, body);
      return mutate(customerId, body);
    },
  });

  async function search(customerId: string, body: { query?: string; pageToken?: string } | null): Promise<Response> {
    const query = body?.query ?? '';
    const campaignId = query.match(/WHERE campaign\.id = ([0-9]+) AND campaign_criterion\.type = IP_BLOCK/)?.[1];
    if (!campaignId || !query.startsWith('SELECT campaign_criterion.resource_name, campaign_criterion.ip_block.ip_address, campaign_criterion.negative FROM campaign_criterion')) {
      return googleError(400, 'INVALID_ARGUMENT', { queryError: 'UNEXPECTED_INPUT' }, `Error in query: ${query}`);
    }
    if (hold) await hold;
    const failed = failure(campaignId, 'search');
    if (failed) return googleError(400, 'INVALID_ARGUMENT', { requestError: 'INVALID_INPUT' }, failed);
    const all = campaignCriteria(customerId, campaignId);
    const offset = body?.pageToken ? Number(body.pageToken) : 0;
    const page = all.slice(offset, offset + pageSize);
    return Response.json({
      results: page.map((criterion) => ({ campaignCriterion: { resourceName: criterion.resourceName, ipBlock: { ipAddress: criterion.ipAddress }, negative: true } })),
      fieldMask: 'campaignCriterion.resourceName,campaignCriterion.ipBlock.ipAddress,campaignCriterion.negative',
      ...(offset + pageSize < all.length ? { nextPageToken: String(offset + pageSize) } : {}),
    });
  }

  function mutate(customerId: string, body: { operations?: any[]; partialFailure?: boolean } | null): Response {
    const operations = body?.operations;
    if (!Array.isArray(operations) || operations.length === 0) return googleError(400, 'INVALID_ARGUMENT', { mutateError: 'EMPTY_MUTATE' }, 'No operations in the request.');
    // Applied to copies, committed only when every operation is valid: one transaction, as Google does.
    const copies = new Map<string, FakeCriterion[]>();
    const working = (campaignId: string) => {
      if (!copies.has(campaignId)) copies.set(campaignId, [...campaignCriteria(customerId, campaignId)]);
      return copies.get(campaignId)!;
    };
    const results: { resourceName: string }[] = [];
    for (const operation of operations) {
      if (typeof operation?.remove === 'string') {
        const campaignId = operation.remove.match(/^customers\/[0-9]+\/campaignCriteria\/([0-9]+)~[0-9]+$/)?.[1];
        if (!campaignId || !operation.remove.startsWith(`customers/${customerId}/`)) return googleError(400, 'INVALID_ARGUMENT', { requestError: 'INVALID_RESOURCE_NAME' }, `Malformed resource name: ${operation.remove}`);
        const failed = failure(campaignId, 'mutate');
        if (failed) return googleError(400, 'INVALID_ARGUMENT', { requestError: 'INVALID_INPUT' }, failed);
        const list = working(campaignId);
        const at = list.findIndex((criterion) => criterion.resourceName === operation.remove);
        if (at < 0) return googleError(404, 'NOT_FOUND', { mutateError: 'RESOURCE_NOT_FOUND' }, `Resource was not found: ${operation.remove}`);
        list.splice(at, 1);
        results.push({ resourceName: operation.remove });
        continue;
      }
      const create = operation?.create;
      const campaignId = typeof create?.campaign === 'string' ? create.campaign.match(new RegExp(`^customers/${customerId}/campaigns/([0-9]+)$`))?.[1] : undefined;
      if (!campaignId || create.negative !== true || typeof create.ipBlock?.ipAddress !== 'string' || Object.keys(operation).length !== 1) {
        return googleError(400, 'INVALID_ARGUMENT', { requestError: 'INVALID_INPUT' }, `Unexpected operation: ${JSON.stringify(operation)}`);
      }
      const failed = failure(campaignId, 'mutate');
      if (failed) return googleError(400, 'INVALID_ARGUMENT', { requestError: 'INVALID_INPUT' }, failed);
      if (!validBlock(create.ipBlock.ipAddress)) return googleError(400, 'INVALID_ARGUMENT', { criterionError: 'INVALID_IP_ADDRESS' }, `Invalid IP address: ${create.ipBlock.ipAddress}`);
      const list = working(campaignId);
      if (list.some((criterion) => criterion.ipAddress === create.ipBlock.ipAddress)) {
        return googleError(400, 'INVALID_ARGUMENT', { criterionError: 'CRITERION_ALREADY_EXISTS' }, `The criterion already exists: ${create.ipBlock.ipAddress}`);
      }
      const criterion = newCriterion(customerId, campaignId, create.ipBlock.ipAddress);
      list.push(criterion);
      results.push({ resourceName: criterion.resourceName });
    }
    for (const [campaignId, list] of copies) {
      if (list.length > cap) return googleError(400, 'INVALID_ARGUMENT', { resourceCountLimitExceededError: 'RESOURCE_LIMIT' }, `Campaign ${campaignId} would have more than ${cap} IP exclusions.`);
    }
    for (const [campaignId, list] of copies) accounts.get(customerId)!.set(campaignId, list);
    return Response.json({ results });
  }

  return {
    env: { GOOGLE_ADS_API_URL: `http://127.0.0.1:${server.port}/v26`, GOOGLE_OAUTH_TOKEN_URL: `http://127.0.0.1:${server.port}/token` },
    credentials,
    calls,
    callsFor: (customerId, kind) => calls.filter((call) => call.customerId === customerId && (kind === undefined || call.kind === kind)),
    criteria: (customerId, campaignId) => [...campaignCriteria(customerId, campaignId)],
    addOwnCriterion(customerId, campaignId, ipAddress) {
      const criterion = newCriterion(customerId, campaignId, ipAddress);
      campaignCriteria(customerId, campaignId).push(criterion);
      return criterion.resourceName;
    },
    deleteCriterion(customerId, resourceName) {
      for (const list of accounts.get(customerId)?.values() ?? []) {
        const at = list.findIndex((criterion) => criterion.resourceName === resourceName);
        if (at >= 0) list.splice(at, 1);
      }
    },
    failCampaign: (campaignId, message, on = 'both') => void failing.set(campaignId, { message, on }),
    requireLoginCustomer: (customerId, loginCustomerId) => void loginCustomers.set(customerId, loginCustomerId),
    holdSearches() {
      let release!: () => void;
      hold = new Promise<void>((resolve) => (release = resolve));
      return () => {
        hold = undefined;
        release();
      };
    },
    stop: () => server.stop(true),
  };
}

function validBlock(text: string): boolean {
  try {
    if (text.includes('/')) ipaddr.parseCIDR(text);
    else ipaddr.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Google's error body: a generic top message and the GoogleAdsFailure details that say what was wrong. */
function googleError(code: number, status: string, errorCode: Record<string, string>, message: string): Response {
  return Response.json(
    {
      error: {
        code,
        message: code === 400 ? 'Request contains an invalid argument.' : 'The caller does not have permission',
        status,
        details: [{ '@type': 'type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure', errors: [{ errorCode, message }], requestId: `req-${code}-${status.toLowerCase()}` }],
      },
    },
    { status: code },
  );
}
