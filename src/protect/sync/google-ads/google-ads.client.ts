/**
 * The few Google Ads REST calls the IP-exclusion sync makes: the OAuth refresh-token exchange,
 * GoogleAdsService search (every page) and CampaignCriterionService mutate. Every call has a
 * timeout; every failure is a GoogleAdsError carrying Google's own message.
 */
import { errorMessage } from '../../../shared/error-message';
import type { GoogleAdsConnection } from '../integrations.model';

export interface GoogleAdsEndpoints {
  /** The REST base with its version, e.g. https://googleads.googleapis.com/v26 (GOOGLE_ADS_API_URL). */
  apiUrl: string;
  tokenUrl: string;
  timeoutMs?: number;
}

/** The ad platform refused or failed a call; `message` is what it said, for the sync's `errors`. */
export class GoogleAdsError extends Error {}

/** The OAuth exchange failed: no call to the API can succeed until the account is connected again. */
export class GoogleAdsAuthError extends GoogleAdsError {}

/** One row of a search answer, in the REST API's camelCase JSON. */
export type GoogleAdsRow = Record<string, unknown>;

export type CampaignCriterionOperation =
  | { create: { campaign: string; negative: true; ipBlock: { ipAddress: string } } }
  | { remove: string };

export interface GoogleAdsClient {
  /** Exchanges the refresh token for an access token (done once, before the first API call). */
  authenticate(): Promise<void>;
  search(customerId: string, query: string): Promise<GoogleAdsRow[]>;
  /** One atomic request: every operation applies, or none. Resource names in operation order. */
  mutateCampaignCriteria(customerId: string, operations: readonly CampaignCriterionOperation[]): Promise<string[]>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
/** A search answer pages by 10,000 rows; this many pages means the server is looping. */
const MAX_PAGES = 100;

export function createGoogleAdsClient(endpoints: GoogleAdsEndpoints, connection: GoogleAdsConnection): GoogleAdsClient {
  const timeoutMs = endpoints.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let accessToken: string | undefined;

  async function call(what: string, url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new GoogleAdsError(timedOut ? `${what}: no answer within ${timeoutMs / 1000} s` : `${what}: unreachable (${errorMessage(error)})`);
    }
  }

  async function authenticate(): Promise<string> {
    if (accessToken) return accessToken;
    const what = 'Google sign-in';
    const response = await call(what, endpoints.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: connection.clientId,
        client_secret: connection.clientSecret,
        refresh_token: connection.refreshToken,
      }),
    });
    const body = (await readJson(response)) as { access_token?: unknown; error?: unknown; error_description?: unknown } | null;
    if (!response.ok || typeof body?.access_token !== 'string' || body.access_token === '') {
      const reason = typeof body?.error === 'string' ? [body.error, body.error_description].filter((part) => typeof part === 'string').join(': ') : `HTTP ${response.status}`;
      throw new GoogleAdsAuthError(`${what} failed: ${reason}`);
    }
    accessToken = body.access_token;
    return accessToken;
  }

  async function post(what: string, customerId: string, method: string, payload: unknown): Promise<Record<string, unknown>> {
    const token = await authenticate();
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'developer-token': connection.developerToken,
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (connection.loginCustomerId) headers['login-customer-id'] = connection.loginCustomerId;
    const response = await call(what, `${endpoints.apiUrl}/customers/${customerId}/${method}`, { method: 'POST', headers, body: JSON.stringify(payload) });
    const body = await readJson(response);
    if (!response.ok) throw new GoogleAdsError(`${what}: ${googleErrorMessage(body, response.status)}`);
    return (body ?? {}) as Record<string, unknown>;
  }

  return {
    async authenticate() {
      await authenticate();
    },
    async search(customerId, query) {
      const rows: GoogleAdsRow[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const body = await post('Google Ads search', customerId, 'googleAds:search', pageToken ? { query, pageToken } : { query });
        if (Array.isArray(body.results)) rows.push(...(body.results as GoogleAdsRow[]));
        pageToken = typeof body.nextPageToken === 'string' && body.nextPageToken !== '' ? body.nextPageToken : undefined;
        if (!pageToken) return rows;
      }
      throw new GoogleAdsError(`Google Ads search: still paging after ${MAX_PAGES} pages`);
    },
    async mutateCampaignCriteria(customerId, operations) {
      const body = await post('Google Ads mutate', customerId, 'campaignCriteria:mutate', { operations, partialFailure: false });
      const results = Array.isArray(body.results) ? (body.results as { resourceName?: unknown }[]) : [];
      const names = results.map((result) => (typeof result?.resourceName === 'string' ? result.resourceName : ''));
      if (names.length !== operations.length || names.some((name) => name === '')) {
        throw new GoogleAdsError(`Google Ads mutate: answered ${names.length} results for ${operations.length} operations`);
      }
      return names;
    },
  };
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Google's error body: `{error: {code, message, status, details: [{errors: [{message, errorCode}],
 * requestId}]}}`. The GoogleAdsFailure messages say what was wrong; the top message is generic.
 */
export function googleErrorMessage(body: unknown, status: number): string {
  const error = (body as { error?: { message?: unknown; status?: unknown; details?: unknown } } | null)?.error;
  if (!error || typeof error !== 'object') return `HTTP ${status}`;
  const details = Array.isArray(error.details) ? (error.details as { errors?: unknown; requestId?: unknown }[]) : [];
  const messages: string[] = [];
  let requestId: string | undefined;
  for (const detail of details) {
    if (typeof detail?.requestId === 'string') requestId = detail.requestId;
    if (!Array.isArray(detail?.errors)) continue;
    for (const failure of detail.errors as { message?: unknown; errorCode?: unknown }[]) {
      const code = failure?.errorCode && typeof failure.errorCode === 'object' ? Object.values(failure.errorCode as Record<string, unknown>)[0] : undefined;
      if (typeof failure?.message === 'string') messages.push(typeof code === 'string' ? `${code}: ${failure.message}` : failure.message);
    }
  }
  const head = messages.length > 0 ? messages.join('; ') : typeof error.message === 'string' ? error.message : `HTTP ${status}`;
  const state = typeof error.status === 'string' ? `${error.status} ` : '';
  return `${state}${head}${requestId ? ` (request ${requestId})` : ''}`.trim();
}
