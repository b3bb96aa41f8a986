import type { TSchema } from 'elysia';
import { WELL_KNOWN_PREFIX } from '../privacy-sandbox/privacy-sandbox.model';
import type { TrackingRouteDoc } from '../tracking/redirect/tracking.docs';
import { ErrorBody, RateLimitedBody, ValidationErrorBody } from './error-bodies';
import { addStandardResponses } from './standard-responses';

/**
 * The OpenAPI 3.1 document of GET /api/openapi.json, generated from the routes the app serves:
 * each route's TypeBox models (params, query, headers, body, response) and its `detail` (summary,
 * security set by the auth macros, extra responses), plus the tracking routes Bun serves itself.
 * TypeBox schemas are JSON Schema, which OpenAPI 3.1 takes as they are (docs/dashboard.md, "API reference").
 */
export interface RouteSource {
  method: string;
  path: string;
  hooks?: {
    params?: unknown;
    query?: unknown;
    headers?: unknown;
    body?: unknown;
    response?: unknown;
    detail?: Record<string, unknown>;
  };
}

export interface DocumentOptions {
  version: string;
  baseUrl: string;
  trackingUrl: string;
  routes: readonly RouteSource[];
  tracking: Record<string, TrackingRouteDoc>;
}

type Json = Record<string, unknown>;

/** The credentials of the spec's Authentication part, as the auth macros name them (src/auth/auth.plugin.ts). */
export const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'API key `svc_live_` + 32 characters, in `Authorization: Bearer <key>`' },
  apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'the API key as a query parameter (postback URLs only)' },
  sdkKey: { type: 'apiKey', in: 'header', name: 'X-SDK-Key', description: 'the app\'s SDK key, `sk_` + 32 characters' },
  sdkKeyQuery: { type: 'apiKey', in: 'query', name: 'sdk_key', description: 'the SDK key as a query parameter' },
  session: { type: 'apiKey', in: 'cookie', name: 'svc_session', description: 'the dashboard session (browser only); writes also need a same-origin `Origin` and a JSON body' },
  ingestSignature: { type: 'apiKey', in: 'header', name: 'X-SVC-Signature', description: 'lowercase hex HMAC-SHA256 of the raw body, keyed by the edge ingest secret' },
} as const;

/**
 * The schema as OpenAPI 3.1 takes it: keywords Elysia adds for its own use (`error`: the message
 * of a failed check) and TypeBox symbols dropped, OpenAPI 3.0's `nullable` turned into 3.1's null type.
 */
function jsonSchema(schema: unknown): Json {
  return JSON.parse(
    JSON.stringify(schema, (key, value) => {
      if (key === 'error' && typeof value !== 'object') return undefined;
      return typeof value?.nullable === 'boolean' ? withoutNullable(value) : value;
    }),
  ) as Json;
}

/** Elysia's t.Nullable marks its union with null `nullable: true` too; the null branch alone says it in 3.1. */
function withoutNullable({ nullable, ...schema }: Json): Json {
  return nullable && !admitsNull(schema) ? { anyOf: [schema, { type: 'null' }] } : schema;
}

const admitsNull = (schema: Json): boolean =>
  schema.type === 'null' ||
  (Array.isArray(schema.type) && schema.type.includes('null')) ||
  [schema.anyOf, schema.oneOf].some((branches) => Array.isArray(branches) && branches.some((branch) => admitsNull(branch as Json)));

const isSchema = (value: unknown): value is TSchema => typeof value === 'object' && value !== null && ('type' in value || 'anyOf' in value || 'oneOf' in value || 'allOf' in value || '$ref' in value || 'const' in value);

/** Path `/api/v1/links/:id` as OpenAPI writes it: `/api/v1/links/{id}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parametersOf(where: 'path' | 'query' | 'header', schema: unknown): Json[] {
  if (!isSchema(schema)) return [];
  const object = jsonSchema(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: where, required: where === 'path' || (object.required ?? []).includes(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** Paths the spec places on `{tracking_url}`, besides the tracking routes: the Privacy Sandbox's. */
const onTrackingHost = (path: string) => path.startsWith(`${WELL_KNOWN_PREFIX}/`);

function tagOf(path: string): string {
  if (/^\/(c|l|i)\//.test(path)) return 'Tracking';
  if (onTrackingHost(path)) return 'Privacy Sandbox';
  const segments = path.split('/').filter(Boolean);
  if (segments[0] !== 'api') return path === '/api/openapi.json' ? 'Reference' : 'Web app';
  if (segments[1] === 'v1') return `REST: ${segments[2]}`;
  if (segments[1] === 'sdk') return 'SDK';
  if (segments[1] === 'dashboard' || (segments[1] === 'protect' && segments[2] !== 'beacon')) return 'Dashboard';
  return segments[1] === 'openapi.json' ? 'Reference' : capitalise(segments[1] ?? 'api');
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** getApiV1LinksById for GET /api/v1/links/:id; getIndex for GET /. */
function operationId(method: string, path: string): string {
  const words = path.split('/').filter(Boolean).map((part) => (part.startsWith(':') ? `By${capitalise(part.slice(1))}` : part.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))));
  return method.toLowerCase() + (words.length === 0 ? 'Index' : words.map(capitalise).join(''));
}

/** The security schemes of API keys and SDK keys, each counted against its own limit. */
const KEY_SCHEMES = ['apiKey', 'apiKeyQuery', 'sdkKey', 'sdkKeyQuery'];

function operationOf(route: RouteSource): Json {
  const hooks = route.hooks ?? {};
  const { responses: extraResponses, security: declaredSecurity, ...detail } = (hooks.detail ?? {}) as Json & { responses?: Json; security?: Json[] };
  // Each requirement once, in order: a route's detail and its auth option's are merged by concatenation.
  const security = declaredSecurity && [...new Map(declaredSecurity.map((requirement) => [JSON.stringify(requirement), requirement])).values()];
  const parameters = [
    ...(isSchema(hooks.params) ? parametersOf('path', hooks.params) : [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }))),
    ...parametersOf('query', hooks.query),
    ...parametersOf('header', hooks.headers),
  ];
  const responses: Json = {};
  const declared = hooks.response;
  if (isSchema(declared)) responses['200'] = { description: 'success', content: { 'application/json': { schema: jsonSchema(declared) } } };
  else if (declared && typeof declared === 'object') {
    for (const [status, schema] of Object.entries(declared)) {
      if (isSchema(schema)) responses[status] = { description: status.startsWith('2') ? 'success' : 'error', content: { 'application/json': { schema: jsonSchema(schema) } } };
    }
  }
  for (const [status, response] of Object.entries(extraResponses ?? {})) {
    const existing = responses[status] as { content?: Json } | undefined;
    const added = response as { description?: string; content?: Json };
    const content = { ...existing?.content, ...(added.content && jsonSchema(added.content)) };
    responses[status] = { ...existing, ...added, ...(Object.keys(content).length > 0 ? { content } : {}) };
  }
  if (!Object.keys(responses).some((status) => status.startsWith('2') || status.startsWith('3'))) responses['200'] = { description: 'success' };
  addStandardResponses(responses as Record<string, Json>, {
    method: route.method,
    path: route.path,
    validated: isSchema(hooks.body) || isSchema(hooks.params) || parameters.some((p) => p.in !== 'path'),
    authenticated: security !== undefined && security.length > 0,
    keyed: (security ?? []).some((requirement) => KEY_SCHEMES.some((scheme) => scheme in requirement)),
    page: Object.keys(responses).some((status) => status.startsWith('3')),
  });
  return {
    tags: [tagOf(route.path)],
    operationId: operationId(route.method, route.path),
    ...detail,
    ...(security && security.length > 0 ? { security } : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(isSchema(hooks.body) && route.method !== 'GET' ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(hooks.body) } } } } : {}),
    responses,
  };
}

function trackingOperation(path: string, doc: TrackingRouteDoc): Json {
  const responses = Object.fromEntries(
    Object.entries(doc.responses).map(([status, response]) => [
      status,
      { description: response.description, ...(response.content ? { content: Object.fromEntries(response.content.map((type) => [type, type === 'application/json' ? { schema: { $ref: '#/components/schemas/Error' } } : {}])) } : {}) },
    ]),
  );
  return {
    tags: ['Tracking'],
    operationId: operationId('GET', path),
    summary: doc.summary,
    security: [],
    parameters: [...parametersOf('path', doc.params), ...parametersOf('query', doc.query)],
    responses,
  };
}

export function openApiDocument(options: DocumentOptions): Json {
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, operation: Json) => {
    (paths[openApiPath(path)] ??= {})[method.toLowerCase()] = operation;
  };
  const trackingServer = [{ url: options.trackingUrl, description: 'tracking_url' }];
  for (const route of options.routes) {
    add(route.path, route.method, operationOf(route));
    if (onTrackingHost(route.path)) paths[openApiPath(route.path)]!.servers = trackingServer;
  }
  for (const [path, doc] of Object.entries(options.tracking)) {
    add(path, 'GET', trackingOperation(path, doc));
    paths[openApiPath(path)]!.servers = trackingServer;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Click tracking, attribution and conversion service',
      version: options.version,
      description: 'Interface version 2026-09-02. Generated from the routes this node serves.',
    },
    servers: [{ url: options.baseUrl, description: 'base_url' }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { ValidationError: jsonSchema(ValidationErrorBody), Error: jsonSchema(ErrorBody), RateLimited: jsonSchema(RateLimitedBody) },
    },
  };
}
