/**
 * A bounded map whose entries expire: what the node-local credential caches keep
 * (src/auth/api-key-cache.ts, src/auth/sdk-key-cache.ts). When full, the oldest entry goes.
 */
export interface TtlCache<V> {
  /** The value, unless it is missing or has expired. */
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  /** Drops every entry whose value matches. */
  deleteWhere(matches: (value: V) => boolean): void;
}

export function createTtlCache<V>({ ttlMs, maxEntries, now = Date.now }: { ttlMs: number; maxEntries: number; now?: () => number }): TtlCache<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt > now()) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set(key, value) {
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!); // the oldest
      entries.set(key, { value, expiresAt: now() + ttlMs });
    },
    deleteWhere(matches) {
      for (const [key, entry] of entries) if (matches(entry.value)) entries.delete(key);
    },
  };
}
