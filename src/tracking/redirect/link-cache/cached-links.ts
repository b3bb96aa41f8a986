import { Lru } from '../../../shared/cache';
import { cacheKey } from './cache-keys';
import type { CompiledLink } from './compiled-link';

/**
 * Compiled links by cache key, least recently used dropped beyond `capacity`, with the key each
 * link id is cached under: a link is cached under one key at a time, and a change drops it by id.
 */
export class CachedLinks {
  private readonly keyById = new Map<string, string>();
  private readonly links: Lru<string, CompiledLink>;

  constructor(capacity: number, options: { ttlMs: number; now: () => number }) {
    this.links = new Lru<string, CompiledLink>(capacity, {
      ...options,
      onEvict: (key, link) => {
        if (this.keyById.get(link.id) === key) this.keyById.delete(link.id);
      },
    });
  }

  get size(): number {
    return this.links.size;
  }

  /** The cached link, `stale` past its time to live (still served, refreshed in the background). */
  peek(key: string): { value: CompiledLink; stale: boolean } | undefined {
    return this.links.peek(key);
  }

  /** Caches `link` under `key`, dropping it from the key it had (a domain or slug change). */
  set(key: string, link: CompiledLink): void {
    const previousKey = this.keyById.get(link.id);
    if (previousKey !== undefined && previousKey !== key) this.links.delete(previousKey);
    this.links.set(key, link);
    this.keyById.set(link.id, key);
  }

  delete(key: string): void {
    this.links.delete(key);
  }

  dropLink(linkId: string): void {
    const key = this.keyById.get(linkId);
    if (key !== undefined) this.links.delete(key);
  }

  /** Drops every link bound to `domain`. */
  dropDomain(domain: string): void {
    const prefix = cacheKey(domain, '');
    for (const key of [...this.keyById.values()]) if (key.startsWith(prefix)) this.links.delete(key);
  }
}
