import type { Queryable } from '../db/db';
import { apiKeyPrefix, findLiveApiKey, isKeySecret, type ApiKeyPrincipal, type LiveApiKey } from './api-keys';

/**
 * A node's memory of keys it has recently found live, for the write routes that re-check the
 * key in the same statement that writes (conversions: see conversions.repo.ts). Such a route
 * skips one database round trip per request, and a key revoked on any node still writes
 * nothing: the statement finds it revoked and the request answers 401. Routes that read, or
 * write without that re-check, authenticate against the database on every request.
 *
 * Only keys found live are kept; a wrong or unknown key always goes to the database, so a
 * flood of bad keys cannot fill the cache. The presented secret is compared with the stored
 * digest in constant time on every request, cached or not.
 */
export interface ApiKeyCache {
  authenticate(presented: string | undefined | null): Promise<ApiKeyPrincipal | null>;
  /** Drops a key, e.g. after this node revoked it. */
  forget(keyId: string): void;
}

export interface ApiKeyCacheOptions {
  /** How long a key found live is trusted before the database is asked again. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export function createApiKeyCache(db: Queryable, { ttlMs = 30_000, maxEntries = 10_000, now = Date.now }: ApiKeyCacheOptions = {}): ApiKeyCache {
  const byPrefix = new Map<string, { key: LiveApiKey; expiresAt: number }>();
  return {
    async authenticate(presented) {
      const prefix = apiKeyPrefix(presented);
      if (prefix === null) return null;
      let entry = byPrefix.get(prefix);
      if (!entry || entry.expiresAt <= now()) {
        byPrefix.delete(prefix);
        const key = await findLiveApiKey(db, prefix);
        if (!key) return null;
        entry = { key, expiresAt: now() + ttlMs };
        if (byPrefix.size >= maxEntries) byPrefix.delete(byPrefix.keys().next().value!); // the oldest
        byPrefix.set(prefix, entry);
      }
      if (!isKeySecret(entry.key, presented!)) return null;
      return { keyId: entry.key.keyId, orgId: entry.key.orgId };
    },
    forget(keyId) {
      for (const [prefix, entry] of byPrefix) if (entry.key.keyId === keyId) byPrefix.delete(prefix);
    },
  };
}
