import type { Queryable } from '../db/db';
import { Lru } from '../shared/cache';
import { apiKeyPrefix, findLiveApiKey, isKeySecret, principalOf, type AuthenticatedApiKey, type LiveApiKey } from './api-keys';

/**
 * A node's memory of keys it recently found live, only for write routes that re-check the key in
 * the statement that writes (conversions.repo.ts), so a key revoked on any node still writes
 * nothing. Only live keys are kept, so a flood of bad keys cannot fill it; the secret is compared
 * with the stored digest in constant time on every request.
 */
export interface ApiKeyCache {
  authenticate(presented: string | undefined | null): Promise<AuthenticatedApiKey | null>;
  /** Drops a key, after it was revoked or its limit changed (on any node: src/auth/key-changes.ts). */
  forget(keyId: string): void;
}

export interface ApiKeyCacheOptions {
  /** How long a key found live is trusted before the database is asked again. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export function createApiKeyCache(db: Queryable, { ttlMs = 30_000, maxEntries = 10_000, now = Date.now }: ApiKeyCacheOptions = {}): ApiKeyCache {
  const byPrefix = new Lru<string, LiveApiKey>(maxEntries, { ttlMs, now });
  return {
    async authenticate(presented) {
      const prefix = apiKeyPrefix(presented);
      if (prefix === null) return null;
      let key = byPrefix.get(prefix);
      if (!key) {
        const found = await findLiveApiKey(db, prefix);
        if (!found) return null;
        byPrefix.set(prefix, (key = found));
      }
      if (!isKeySecret(key, presented!)) return null;
      return principalOf(key);
    },
    forget(keyId) {
      byPrefix.deleteWhere((key) => key.keyId === keyId);
    },
  };
}
