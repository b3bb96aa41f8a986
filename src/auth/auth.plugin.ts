import { Elysia } from 'elysia';
import type { Config } from '../config/config';
import type { Db } from '../db/db';
import { forbidden, unauthorized } from '../http/errors';
import type { RateLimiter } from '../http/rate-limit';
import type { ApiKeyCache } from './api-key-cache';
import type { SdkKeyCache } from './sdk-key-cache';
import { authenticateApiKey } from './api-keys';
import { chargeKey } from './key-rate-limit';
import { readCookie, type Role, SESSION_COOKIE, type SessionPrincipal, verifySession } from './sessions';

export interface AuthDeps {
  db: Db;
  config: Pick<Config, 'sessionSecret' | 'rateLimit' | 'keyRateLimit'>;
  /** The per-IP limits' limiter, which counts each key's requests too (src/auth/key-rate-limit.ts). */
  rateLimiter: RateLimiter;
  /** For `writeKey` routes (src/auth/api-key-cache.ts). */
  apiKeyCache: ApiKeyCache;
  /** For `sdkKey` routes (src/auth/sdk-key-cache.ts). */
  sdkKeyCache: SdkKeyCache;
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearer(header: string | null): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

function queryParam(url: string, name: string): string | undefined {
  const query = url.indexOf('?');
  if (query < 0) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get(name) ?? undefined;
}

/** The OpenAPI security of a route with each option (src/openapi/openapi-document.ts names the schemes). */
type Security = Record<string, string[]>[];
const apiKeySecurity = (mode: true | 'header-or-query'): Security => (mode === true ? [{ apiKey: [] }] : [{ apiKey: [] }, { apiKeyQuery: [] }]);
const SDK_KEY_SECURITY: Security = [{ sdkKey: [] }, { sdkKeyQuery: [] }];
const SESSION_SECURITY: Security = [{ session: [] }];
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Who may send a write with each `session` option (docs/security.md, "Roles"); every role reads.
 * `true` is the default of every session route, present and future: owners and admins write,
 * analysts are refused. `'any-role'` is for what touches only the caller's own account or
 * changes nothing (password, sign out everywhere, the route test); `'owner'` for members and roles.
 */
export type SessionAccess = true | 'any-role' | 'owner';
const WRITERS: Record<'default' | 'any-role' | 'owner', readonly Role[]> = {
  default: ['owner', 'admin'],
  'any-role': ['owner', 'admin', 'analyst'],
  owner: ['owner'],
};

/** Whether a member with `role` may send this method to a route declaring `access`. */
export function roleMay(access: SessionAccess, role: Role, method: string): boolean {
  return !WRITE_METHODS.has(method) || WRITERS[access === true ? 'default' : access].includes(role);
}

/**
 * Route options that authenticate the caller or answer 401: `apiKey` and `writeKey` (the node's cache,
 * only where writes re-check the key) -> `principal`, `sdkKey` -> `sdkApp`, `session` -> `session`
 * (a write also checked against the member's role: 403 when the role may not).
 * A key found live is then counted against its own limit (429 once spent); a bad key is 401 first.
 * Each also marks the route's `detail.security` for the OpenAPI document. Elysia keeps one `auth`
 * instance per app, so every module passes the same full services.
 */
export function authPlugin({ db, config, rateLimiter, apiKeyCache, sdkKeyCache }: AuthDeps) {
  const limits = { rateLimiter, config };
  // One session lookup per request: a write's role check reads it before validation, resolve after.
  const sessions = new WeakMap<Request, Promise<SessionPrincipal | null>>();
  const sessionOf = (request: Request) => {
    let session = sessions.get(request);
    if (!session) sessions.set(request, (session = verifySession(db, config.sessionSecret, readCookie(request.headers.get('cookie'), SESSION_COOKIE))));
    return session;
  };
  const presentedApiKey = (request: Request, mode: true | 'header-or-query') =>
    bearer(request.headers.get('authorization')) ?? (mode === 'header-or-query' ? queryParam(request.url, 'api_key') : undefined);
  return new Elysia({ name: 'auth' }).macro({
    apiKey: (mode: true | 'header-or-query') => ({
      detail: { security: apiKeySecurity(mode) },
      async resolve({ request }) {
        const principal = await authenticateApiKey(db, presentedApiKey(request, mode));
        if (!principal) throw unauthorized();
        await chargeKey(limits, { kind: 'api', id: principal.keyId, rateLimitPerMinute: principal.rateLimitPerMinute });
        return { principal };
      },
    }),
    writeKey: (mode: true | 'header-or-query') => ({
      detail: { security: apiKeySecurity(mode) },
      async resolve({ request }) {
        const principal = await apiKeyCache.authenticate(presentedApiKey(request, mode));
        if (!principal) throw unauthorized();
        await chargeKey(limits, { kind: 'api', id: principal.keyId, rateLimitPerMinute: principal.rateLimitPerMinute });
        return { principal };
      },
    }),
    sdkKey: (_enabled: true) => ({
      detail: { security: SDK_KEY_SECURITY },
      async resolve({ request }) {
        const presented = request.headers.get('x-sdk-key') ?? queryParam(request.url, 'sdk_key');
        const sdkApp = await sdkKeyCache.authenticate(presented);
        if (!sdkApp) throw unauthorized();
        await chargeKey(limits, { kind: 'sdk', id: sdkApp.appId, rateLimitPerMinute: sdkApp.rateLimitPerMinute });
        return { sdkApp };
      },
    }),
    session: (access: SessionAccess) => ({
      detail: { security: SESSION_SECURITY },
      // At the parse stage, before any transform or validation: a refused role is 403 whatever it sent.
      async parse({ request }) {
        if (!WRITE_METHODS.has(request.method)) return;
        const session = await sessionOf(request);
        if (session && !roleMay(access, session.role, request.method)) throw forbidden(session.role === 'analyst' ? 'read-only role' : 'owners only');
      },
      async resolve({ request }) {
        const session = await sessionOf(request);
        if (!session) throw unauthorized();
        return { session };
      },
    }),
  });
}
