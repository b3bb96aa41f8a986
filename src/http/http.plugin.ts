import { Elysia, type PreContext } from 'elysia';
import type { Config } from '../config/config';
import { isUnstorableText } from '../db/errors';
import { clientIp, rateLimitKey } from './client-ip';
import { HttpError, payloadTooLarge, rateLimited } from './errors';
import { boundJsonReaders } from './json-body';
import { FORM_URLENCODED, mediaTypeOf } from './media-type';
import { rateLimitGroup, type RateLimiter } from './rate-limit';
import { isSessionWrite, sessionWriteRefusal } from './session-writes';
import { validationBody } from './validation';

export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
} as const;

/**
 * Room for the largest batches the spec allows, verbose fields included. A declared length above
 * it is refused before a byte is read; a chunked body is cut off as soon as it passes it.
 */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * The socket-level cap handed to Bun. The app answers (in the spec's shape, with the security
 * headers) everything up to here; only a declared length above this gets Bun's bare 413.
 * Bun does not buffer a body nobody reads, so a generous value costs no memory.
 */
export const SOCKET_BODY_BACKSTOP_BYTES = 16 * MAX_BODY_BYTES;

/** A declared `Content-Length` above MAX_BODY_BYTES (or not a number): refused before a byte is read. */
export function declaresTooLarge(request: Request): boolean {
  const declared = request.headers.get('content-length');
  return declared !== null && !(Number(declared) <= MAX_BODY_BYTES);
}

/** Browser-called paths (SDK, beacon) allow any origin; the server-to-server REST API sends no CORS headers. */
export function isCorsPath(path: string): boolean {
  return path.startsWith('/api/sdk/') || path === '/api/protect/beacon';
}

/** Retry-After is exposed so a page's SDK can wait out a 429 as the spec's retry rule asks. */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, X-SDK-Key',
  'Access-Control-Expose-Headers': 'Retry-After',
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

/**
 * The answer to an error nobody expected: its cause goes to the log under `what`, and the
 * client gets the bare 500, never internals. The app, the tracking routes and the sockets'
 * own backstop (serve-options.ts) all answer it this way.
 */
export function internalError(what: string, cause: unknown, headers: Record<string, string> = {}): Response {
  console.error(what, cause);
  return jsonResponse(500, { error: 'internal error' }, headers);
}

/** A JSON answer with the security headers: every error body leaves through here. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...SECURITY_HEADERS, ...headers },
  });
}

/**
 * `body` as it is read, counted: past `limit` bytes it fails with the 413 and the rest of the
 * source is cancelled unread. A listener thread forwards bodies through it too (forwarding.ts).
 */
export function capStream(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(payloadTooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** The answer to a refusal the HTTP rules raise (HttpError), CORS headers included on the browser-called paths. */
export function httpErrorResponse(error: HttpError, path: string): Response {
  return jsonResponse(error.status, error.body, { ...(isCorsPath(path) ? CORS_HEADERS : {}), ...error.headers });
}

const BODY_READERS = ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'] as const;

/**
 * Makes a chunked body fail with 413 once it passes `limit` bytes, whoever reads it. The
 * request object itself is kept (its readers are redirected to the counted stream) because
 * Bun ties the socket address, `server.requestIP(request)`, to that very object.
 */
function capBody(request: Request, limit: number): void {
  const capped = capStream(request.body!, limit);
  const counted = new Response(capped, { headers: { 'content-type': request.headers.get('content-type') ?? '' } });
  Object.defineProperty(request, 'body', { value: capped, configurable: true });
  for (const reader of BODY_READERS) {
    Object.defineProperty(request, reader, { value: () => counted[reader](), configurable: true });
  }
}

export interface HttpDeps {
  config: Pick<Config, 'trustProxy' | 'trustedProxies' | 'rateLimit' | 'baseUrl'>;
  rateLimiter: RateLimiter;
}

/**
 * The cross-cutting HTTP rules (docs/http-rules.md, "HTTP rules"), including the Origin and JSON
 * rule of session writes (session-writes.ts). `routesOf` is read lazily so 405 sees every route
 * composed after this plugin.
 */
export function httpPlugin({ config, rateLimiter }: HttpDeps, routesOf: () => readonly { method: string; path: string }[]) {
  const ownOrigin = new URL(config.baseUrl).origin;
  let compiled: RouteShape[] | undefined;
  const allowedMethods = (path: string) => {
    compiled ??= compileRoutes(routesOf());
    return [...new Set(compiled.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  };

  return new Elysia({ name: 'http-rules' })
    .headers(SECURITY_HEADERS)
    // `path` is the router's own reading of the URL (untyped here), which limits must follow: for a
    // Host under four characters it is not the URL's path (`Host: ab`, `/x/login` routes to /login).
    // Destructured on purpose: a hook taking the whole context makes Elysia parse every body early.
    .onRequest(async ({ request, server, set, path: routed }: PreContext & { path?: string }) => {
      const path = routed ?? pathOf(request.url);
      if (declaresTooLarge(request)) throw payloadTooLarge();
      if (!request.headers.has('content-length') && request.body && request.headers.has('transfer-encoding')) capBody(request, MAX_BODY_BYTES);
      if (request.method !== 'GET' && request.method !== 'HEAD') boundJsonReaders(request);
      if (isCorsPath(path)) {
        Object.assign(set.headers, CORS_HEADERS);
        if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...SECURITY_HEADERS, ...CORS_HEADERS } });
      }
      const group = config.rateLimit ? rateLimitGroup(path) : undefined;
      if (group) {
        const ip = clientIp(request, server?.requestIP(request)?.address, config);
        const decision = await rateLimiter.hit(`${group.group}:${rateLimitKey(ip)}`, group.perMinute);
        if (!decision.allowed) throw rateLimited(decision.retryAfter);
      }
      if (isSessionWrite(request.method, path)) {
        const refusal = sessionWriteRefusal(request, ownOrigin);
        if (refusal) throw refusal;
      }
      // No route takes a form: a urlencoded body (what `curl -d` sends unless told otherwise) is
      // read as the JSON it almost always is, under the same rules, never as form fields. Done by
      // the header, as a parse hook would make Elysia read every route's body before its handler.
      const type = request.headers.get('content-type');
      if (type !== null && mediaTypeOf(type) === FORM_URLENCODED) request.headers.set('content-type', 'application/json');
    })
    .onAfterHandle({ as: 'global' }, ({ responseValue, set }) => {
      // Spec, Authentication rule 7: redirects must not be cached (each click is counted).
      if (responseValue instanceof Response) {
        if (responseValue.status >= 300 && responseValue.status < 400 && !responseValue.headers.has('cache-control')) {
          responseValue.headers.set('Cache-Control', 'no-store');
        }
      } else if (typeof set.status === 'number' && set.status >= 300 && set.status < 400) {
        set.headers['cache-control'] ??= 'no-store';
      }
    })
    .onError({ as: 'global' }, ({ code, error, request, path, params }) => {
      const cors = isCorsPath(path) ? CORS_HEADERS : {};
      // Elysia wraps what a body parser threw (e.g. the 413 of a capped chunked body) in its ParseError.
      const known = error instanceof HttpError ? error : (error as { cause?: unknown } | undefined)?.cause;
      if (known instanceof HttpError) return httpErrorResponse(known, path);
      switch (code) {
        case 'VALIDATION':
          return jsonResponse(400, { error: validationBody(error, request, params as Record<string, string> | undefined) }, cors);
        case 'PARSE':
          return jsonResponse(400, { error: { formErrors: ['the body is not valid JSON'], fieldErrors: {} } }, cors);
        case 'INVALID_FILE_TYPE':
          return jsonResponse(400, { error: { formErrors: [error.message], fieldErrors: {} } }, cors);
        case 'NOT_FOUND': {
          const allowed = allowedMethods(path);
          if (allowed.length > 0 && !allowed.includes(request.method)) {
            return jsonResponse(405, { error: 'method not allowed' }, { Allow: allowed.join(', '), ...cors });
          }
          return jsonResponse(404, { error: 'not found' }, cors);
        }
        case 'INVALID_COOKIE_SIGNATURE':
          return jsonResponse(401, { error: 'unauthorized' });
        default:
          if (isUnstorableText(error)) {
            return jsonResponse(400, { error: { formErrors: ['text must not contain NUL (U+0000) characters'], fieldErrors: {} } }, cors);
          }
          return internalError(`unhandled error: ${request.method} ${path}`, error, cors);
      }
    });
}

export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.indexOf('?', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}
