/**
 * The service's caches, two policies in one place: `Lru` for rows read from the database (they
 * expire, and the recently used stay), `setBounded` for memos of pure answers on the hot path
 * (nothing expires, and a hit must cost one lookup). Why not the lru-cache package: its clock
 * cannot be injected, an entry started at 0 never expires and one at exactly its TTL is still
 * served (CONTRIBUTING.md, "One primitive per job").
 */

/**
 * A bounded least-recently-used map with an optional time to live: the one cache of rows read
 * from the database (links, unknown keys, campaigns, API and SDK keys). A Map keeps insertion
 * order, so re-inserting on access makes the first key the least recently used one.
 * Memory never exceeds `capacity` entries, whatever keys the traffic brings. Memos of pure
 * answers on the hot path (user agents, addresses) use setBounded below instead.
 */
export class Lru<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    readonly capacity: number,
    private readonly options: { ttlMs?: number; now?: () => number; onEvict?: (key: K, value: V) => void } = {},
  ) {
    if (capacity < 1) throw new Error('Lru capacity must be at least 1');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, or undefined when absent or expired. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Like get, but an expired entry is still returned, with `stale: true` (stale-while-revalidate). */
  peek(key: K): { value: V; stale: boolean } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { value: entry.value, stale: entry.expiresAt <= this.now() };
  }

  set(key: K, value: V): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      if (previous.value !== value) this.options.onEvict?.(key, previous.value);
    }
    const ttl = this.options.ttlMs ?? Infinity;
    this.entries.set(key, { value, expiresAt: this.now() + ttl });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as K;
      this.delete(oldest);
    }
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.options.onEvict?.(key, entry.value);
  }

  /** Drops every entry whose value matches (a revoked key, under whatever prefix it is cached). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of [...this.entries]) if (matches(entry.value)) this.delete(key);
  }

  clear(): void {
    if (!this.options.onEvict) return this.entries.clear();
    for (const key of [...this.entries.keys()]) this.delete(key);
  }

  private now(): number {
    return this.options.now?.() ?? performance.now();
  }
}

/**
 * Keeps `value` under `key` in a memo bounded to `limit` entries: a full map is emptied first.
 * The one memo of pure answers on the hot path (user agents, addresses, landing URLs, rule
 * facts, the IP memo of src/ipintel/address-memo.ts) instead of an LRU: a hit costs one lookup and
 * no reordering, and after a clear the hot keys are back within a few requests. Rows read from the
 * database, which expire, are kept in an Lru.
 */
export function setBounded<K, V>(map: Map<K, V>, limit: number, key: K, value: V): V {
  if (map.size >= limit) map.clear();
  map.set(key, value);
  return value;
}
