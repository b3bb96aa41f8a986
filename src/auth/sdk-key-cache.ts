import type { Queryable } from '../db/db';
import { Lru } from '../shared/cache';
import { sha256Hex } from '../shared/crypto/secrets';
import { authenticateSdkKey, SDK_KEY_PATTERN, type AuthenticatedSdkApp } from './sdk-keys';

/**
 * A node's memory of the apps behind SDK keys, so an install or event spends no round trip on its
 * key. SDK keys are public and never revoked, but an app's settings change, so an entry lives a
 * few seconds, and a change of its rate limit drops it at once (src/auth/key-changes.ts). Only keys
 * naming an app are kept; entries are found by the key's SHA-256, a value the caller cannot steer.
 */
export interface SdkKeyCache {
  authenticate(presented: string | undefined | null): Promise<AuthenticatedSdkApp | null>;
  /** Drops the app's entry, after a change of its SDK key's limit (on any node). */
  forget(appId: string): void;
}

export function createSdkKeyCache(db: Queryable, { ttlMs = 5_000, maxEntries = 10_000, now = Date.now } = {}): SdkKeyCache {
  const byDigest = new Lru<string, AuthenticatedSdkApp>(maxEntries, { ttlMs, now });
  return {
    async authenticate(presented) {
      if (!presented || !SDK_KEY_PATTERN.test(presented)) return null;
      const digest = sha256Hex(presented);
      const cached = byDigest.get(digest);
      if (cached) return cached;
      const app = await authenticateSdkKey(db, presented);
      if (app) byDigest.set(digest, app);
      return app;
    },
    forget(appId) {
      byDigest.deleteWhere((app) => app.appId === appId);
    },
  };
}
