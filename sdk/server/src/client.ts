/**
 * The typed client of the REST API for servers (Node 18+, Bun, Deno): openapi-fetch over the
 * types generated from the service's OpenAPI document, under the interface's retry rule, with one
 * method per operation a server integration makes (docs/sdk.md, "Server client").
 */
import createClient from 'openapi-fetch';
import { ServerApiError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { sendWithRetries, type Replay, type RetryOptions } from './retry.js';
import type { Answer, Method, Query, RequestBody } from './types.js';

export interface ServerClientOptions {
  /** `{base_url}` of the service, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** An API key, `svc_live_` + 32 characters; one per integration, so each can be revoked alone. */
  apiKey: string;
  retry?: RetryOptions;
  /** The fetch every attempt goes through (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  headers?: Record<string, string>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

interface Init extends CallOptions {
  path?: Record<string, string>;
  query?: object;
  body?: unknown;
  /** Default: GET, PUT, PATCH and DELETE are safe to repeat (they read or set); POST is not. */
  replay?: Replay;
}

const replayOf = (method: Method): Replay => (method === 'post' ? 'refused-only' : 'safe');

/** What a batch of clicks since a time gave: `complete` is false when the page was full and older clicks of the window were left out. */
export interface ClickExport {
  data: Answer<'/api/v1/clicks', 'get'>['data'];
  complete: boolean;
}

const MAX_CLICKS = 1000;

export function createServerClient(options: ServerClientOptions) {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const raw = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}`, ...options.headers },
    fetch: (request) => sendWithRetries(send, request, request.method === 'POST' ? 'refused-only' : 'safe', options.retry),
  });

  async function call<P extends keyof paths, M extends Method>(method: M, path: P, init: Init = {}): Promise<Answer<P, M>> {
    const replay = init.replay ?? replayOf(method);
    const request = (raw as unknown as Record<string, (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>>)[method.toUpperCase()]!;
    const { data, error, response } = await request(path as string, {
      params: { path: init.path, query: init.query },
      body: init.body,
      signal: init.signal,
      fetch: (request: Request) => sendWithRetries(send, request, replay, options.retry),
    });
    if (!response.ok) throw new ServerApiError(method.toUpperCase(), path as string, response.status, error);
    return data as Answer<P, M>;
  }

  return {
    /** The openapi-fetch client itself, for any operation of the document (`raw.GET('/api/v1/settings')`). */
    raw,
    links: {
      create: (body: RequestBody<'/api/v1/links', 'post'>, o?: CallOptions) => call('post', '/api/v1/links', { body, ...o }),
      list: (query?: Query<'/api/v1/links', 'get'>, o?: CallOptions) => call('get', '/api/v1/links', { query, ...o }),
      get: (id: string, o?: CallOptions) => call('get', '/api/v1/links/{id}', { path: { id }, ...o }),
      update: (id: string, body: RequestBody<'/api/v1/links/{id}', 'patch'>, o?: CallOptions) => call('patch', '/api/v1/links/{id}', { path: { id }, body, ...o }),
      /** The top links by clicks of the last 24 hours, to warm an edge cache. */
      hot: (o?: CallOptions) => call('get', '/api/edge/links/hot', { ...o }),
    },
    campaigns: {
      create: (body: RequestBody<'/api/v1/campaigns', 'post'>, o?: CallOptions) => call('post', '/api/v1/campaigns', { body, ...o }),
      list: (query?: Query<'/api/v1/campaigns', 'get'>, o?: CallOptions) => call('get', '/api/v1/campaigns', { query, ...o }),
      get: (id: string, o?: CallOptions) => call('get', '/api/v1/campaigns/{id}', { path: { id }, ...o }),
      update: (id: string, body: RequestBody<'/api/v1/campaigns/{id}', 'patch'>, o?: CallOptions) => call('patch', '/api/v1/campaigns/{id}', { path: { id }, body, ...o }),
    },
    apps: {
      create: (body: RequestBody<'/api/v1/apps', 'post'>, o?: CallOptions) => call('post', '/api/v1/apps', { body, ...o }),
      list: (query?: Query<'/api/v1/apps', 'get'>, o?: CallOptions) => call('get', '/api/v1/apps', { query, ...o }),
      get: (id: string, o?: CallOptions) => call('get', '/api/v1/apps/{id}', { path: { id }, ...o }),
      update: (id: string, body: RequestBody<'/api/v1/apps/{id}', 'patch'>, o?: CallOptions) => call('patch', '/api/v1/apps/{id}', { path: { id }, body, ...o }),
      forwarder: (id: string, o?: CallOptions) => call('get', '/api/v1/apps/{id}/forwarder', { path: { id }, ...o }),
      setForwarder: (id: string, body: RequestBody<'/api/v1/apps/{id}/forwarder', 'put'>, o?: CallOptions) => call('put', '/api/v1/apps/{id}/forwarder', { path: { id }, body, ...o }),
    },
    conversions: {
      /** Idempotent on `order_id` plus `event`: retried after a 5xx only when it has an `order_id`. */
      create: (body: RequestBody<'/api/v1/conversions', 'post'>, o?: CallOptions) => call('post', '/api/v1/conversions', { body, replay: body.order_id ? 'safe' : 'refused-only', ...o }),
      list: (query?: Query<'/api/v1/conversions', 'get'>, o?: CallOptions) => call('get', '/api/v1/conversions', { query, ...o }),
    },
    postbacks: {
      /** A conversion as a server postback (`POST /postback`), idempotent as `conversions.create`. */
      send: (query: Omit<Query<'/postback', 'post'>, 'api_key'>, o?: CallOptions) => call('post', '/postback', { query, replay: query.order_id ? 'safe' : 'refused-only', ...o }),
      destinations: {
        create: (body: RequestBody<'/api/v1/postback-destinations', 'post'>, o?: CallOptions) => call('post', '/api/v1/postback-destinations', { body, ...o }),
        list: (o?: CallOptions) => call('get', '/api/v1/postback-destinations', { ...o }),
        delete: (id: string, o?: CallOptions) => call('delete', '/api/v1/postback-destinations/{id}', { path: { id }, ...o }),
      },
      deliveries: (query?: Query<'/api/v1/postback-deliveries', 'get'>, o?: CallOptions) => call('get', '/api/v1/postback-deliveries', { query, ...o }),
    },
    costs: {
      /** An upsert on campaign plus day, so safe to repeat. */
      import: (rows: RequestBody<'/api/v1/costs', 'post'>['rows'], o?: CallOptions) => call('post', '/api/v1/costs', { body: { rows }, replay: 'safe', ...o }),
    },
    impressions: {
      /** Not idempotent: retried only after a 429. */
      import: (impressions: RequestBody<'/api/v1/impressions', 'post'>['impressions'], o?: CallOptions) => call('post', '/api/v1/impressions', { body: { impressions }, ...o }),
    },
    tvAirings: {
      /** Not idempotent: retried only after a 429. */
      import: (airings: RequestBody<'/api/v1/tv-airings', 'post'>['airings'], o?: CallOptions) => call('post', '/api/v1/tv-airings', { body: { airings }, ...o }),
      list: (query?: Query<'/api/v1/tv-airings', 'get'>, o?: CallOptions) => call('get', '/api/v1/tv-airings', { query, ...o }),
    },
    clicks: {
      list: (query?: Query<'/api/v1/clicks', 'get'>, o?: CallOptions) => call('get', '/api/v1/clicks', { query, ...o }),
      /**
       * Every click since `since` (inclusive), newest first, in one call of the largest page. The
       * endpoint has a lower bound only, so a full page (1000) means older clicks of the window
       * were left out: `complete` says so, and a narrower window (a later `since`, a `gclid`) gets them.
       */
      async export(query: Omit<Query<'/api/v1/clicks', 'get'>, 'limit'>, o?: CallOptions): Promise<ClickExport> {
        const { data } = await call('get', '/api/v1/clicks', { query: { ...query, limit: MAX_CLICKS }, ...o });
        return { data, complete: data.length < MAX_CLICKS };
      },
    },
    reports: {
      breakdown: (query: Query<'/api/v1/reports/breakdown', 'get'>, o?: CallOptions) => call('get', '/api/v1/reports/breakdown', { query, ...o }),
      cohorts: (query: Query<'/api/v1/reports/cohorts', 'get'>, o?: CallOptions) => call('get', '/api/v1/reports/cohorts', { query, ...o }),
      /**
       * The campaign pivot (one row per day and campaign: clicks, installs, conversions, revenue,
       * spend, cpi, roas): the breakdown grouped by `day,campaign`, which counts as the pivot does
       * (docs/reports.md, "Breakdowns").
       */
      pivot: (query: Omit<Query<'/api/v1/reports/breakdown', 'get'>, 'group_by'>, o?: CallOptions) => call('get', '/api/v1/reports/breakdown', { query: { ...query, group_by: 'day,campaign' }, ...o }),
    },
  };
}

export type ServerClient = ReturnType<typeof createServerClient>;
