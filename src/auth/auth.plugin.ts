import { Elysia } from 'elysia';
import type { Config } from '../config';
import type { Db } from '../db/db';
import { unauthorized } from '../http/errors';
import type { ApiKeyCache } from './api-key-cache';
import type { SdkKeyCache } from './sdk-key-cache';
import { authenticateApiKey } from './api-keys';
import { readCookie, SESSION_COOKIE, verifySession } from './sessions';

export interface AuthDeps {
  db: Db;
  config: Pick<Config, 'sessionSecret'>;
  /** For `writeKey` routes (src/auth/api-key-cache.ts). */
  apiKeyCache: ApiKeyCache;
  /** For `sdkKey` routes (src/auth/sdk-key-cache.ts). */
  sdkKeyCache: SdkKeyCache;
}

function bearer(header: string | null): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

function queryParam(url: string, name: string): string | undefined {
  const query = url.indexOf('?');
  if (query < 0) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get(name) ?? undefined;
}

/**
 * Route options that authenticate the caller before validation-free work begins:
 *   { apiKey: true }           Authorization: Bearer svc_live_...      -> `principal` {keyId, orgId}
 *   { apiKey: 'header-or-query' }  also ?api_key= (postback URLs only)
 *   { writeKey: true | 'header-or-query' }  the same, from the node's key cache: ONLY for
 *                              routes whose writes re-check the key in the same statement
 *                              (src/auth/api-key-cache.ts)
 *   { sdkKey: true }           X-SDK-Key or ?sdk_key=                   -> `sdkApp`
 *   { session: true }          svc_session cookie                      -> `session` {userId, orgId}
 * A missing, wrong or revoked credential answers 401 {"error":"unauthorized"}.
 * Elysia keeps one instance of a named plugin per app: whichever module registers `auth` first
 * supplies every module's macros, so every module passes the same services (AuthDeps requires
 * the caches), never a partial set.
 */
export function authPlugin({ db, config, apiKeyCache, sdkKeyCache }: AuthDeps) {
  const presentedApiKey = (request: Request, mode: true | 'header-or-query') =>
    bearer(request.headers.get('authorization')) ?? (mode === 'header-or-query' ? queryParam(request.url, 'api_key') : undefined);
  return new Elysia({ name: 'auth' }).macro({
    apiKey: (mode: true | 'header-or-query') => ({
      async resolve({ request }) {
        const principal = await authenticateApiKey(db, presentedApiKey(request, mode));
        if (!principal) throw unauthorized();
        return { principal };
      },
    }),
    writeKey: (mode: true | 'header-or-query') => ({
      async resolve({ request }) {
        const principal = await apiKeyCache.authenticate(presentedApiKey(request, mode));
        if (!principal) throw unauthorized();
        return { principal };
      },
    }),
    sdkKey: (_enabled: true) => ({
      async resolve({ request }) {
        const presented = request.headers.get('x-sdk-key') ?? queryParam(request.url, 'sdk_key');
        const sdkApp = await sdkKeyCache.authenticate(presented);
        if (!sdkApp) throw unauthorized();
        return { sdkApp };
      },
    }),
    session: (_enabled: true) => ({
      async resolve({ request }) {
        const session = await verifySession(db, config.sessionSecret, readCookie(request.headers.get('cookie'), SESSION_COOKIE));
        if (!session) throw unauthorized();
        return { session };
      },
    }),
  });
}
