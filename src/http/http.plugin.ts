import { Elysia } from 'elysia';
import type { Config } from '../config';
import { clientIp, rateLimitKey } from './client-ip';
import { HttpError, payloadTooLarge, rateLimited, toValidationBody } from './errors';
import { rateLimitGroup, type RateLimiter } from './rate-limit';

export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
} as const;

/** Large enough for 5000 cost or impression rows; anything bigger is refused before parsing. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Browser-called paths (SDK, beacon) allow any origin; the server-to-server REST API sends no CORS headers. */
export function isCorsPath(path: string): boolean {
  return path.startsWith('/api/sdk/') || path === '/api/protect/beacon';
}

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, X-SDK-Key',
  'Access-Control-Max-Age': '86400',
};

interface RouteShape {
  method: string;
  pattern: RegExp;
}

/** Turns Elysia route paths (/api/v1/links/:id, /c/*) into matchers, to tell 405 from 404. */
function compileRoutes(routes: readonly { method: string; path: string }[]): RouteShape[] {
  return routes.map((route) => {
    const source = route.path
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return { method: route.method.toUpperCase(), pattern: new RegExp(`^${source}$`) };
  });
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...SECURITY_HEADERS, ...headers },
  });
}

export interface HttpDeps {
  config: Pick<Config, 'trustProxy' | 'rateLimit'>;
  rateLimiter: RateLimiter;
}

/**
 * The cross-cutting HTTP rules: security headers on every response, the spec's error bodies,
 * 404/405, body size limit, CORS for browser-called paths and per-IP rate limits.
 * `routesOf` is read lazily so 405 sees every route composed after this plugin.
 */
export function httpPlugin({ config, rateLimiter }: HttpDeps, routesOf: () => readonly { method: string; path: string }[]) {
  let compiled: RouteShape[] | undefined;
  const allowedMethods = (path: string) => {
    compiled ??= compileRoutes(routesOf());
    return [...new Set(compiled.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  };

  return new Elysia({ name: 'http-rules' })
    .headers(SECURITY_HEADERS)
    .onRequest(async ({ request, server, set }) => {
      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > MAX_BODY_BYTES) throw payloadTooLarge();
      const path = pathOf(request.url);
      if (isCorsPath(path)) {
        Object.assign(set.headers, CORS_HEADERS);
        if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...SECURITY_HEADERS, ...CORS_HEADERS } });
      }
      if (!config.rateLimit) return;
      const group = rateLimitGroup(path);
      if (!group) return;
      const ip = clientIp(request, server?.requestIP(request)?.address, config.trustProxy);
      const decision = await rateLimiter.hit(`${group.group}:${rateLimitKey(ip)}`, group.perMinute);
      if (!decision.allowed) throw rateLimited(decision.retryAfter);
    })
    .onError({ as: 'global' }, ({ code, error, request }) => {
      const cors = isCorsPath(pathOf(request.url)) ? CORS_HEADERS : {};
      if (error instanceof HttpError) return json(error.status, error.body, { ...cors, ...error.headers });
      switch (code) {
        case 'VALIDATION':
          return json(400, { error: toValidationBody(error.all.map((e) => ({ path: e.path, message: e.message ?? 'invalid' }))) }, cors);
        case 'PARSE':
          return json(400, { error: { formErrors: ['the body is not valid JSON'], fieldErrors: {} } }, cors);
        case 'NOT_FOUND': {
          const allowed = allowedMethods(pathOf(request.url));
          if (allowed.length > 0 && !allowed.includes(request.method)) {
            return json(405, { error: 'method not allowed' }, { Allow: allowed.join(', '), ...cors });
          }
          return json(404, { error: 'not found' }, cors);
        }
        case 'INVALID_COOKIE_SIGNATURE':
          return json(401, { error: 'unauthorized' });
        default:
          console.error('unhandled error', request.method, pathOf(request.url), error);
          return json(500, { error: 'internal error' }, cors);
      }
    });
}

export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.indexOf('?', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}
