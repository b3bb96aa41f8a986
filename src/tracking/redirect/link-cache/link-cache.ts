import type { Db } from '../../../db/db';
import type { LinkChanges } from './link-changes';
import { forEachLinkKey } from '../lookups.repo';
import { cacheKey, HostDomains } from './cache-keys';
import { CachedLinks } from './cached-links';
import type { CompiledLink } from './compiled-link';
import { linkChangeHandler } from './link-invalidation';
import { LinkLoads } from './link-loads';
import { UnknownKeys } from './unknown-keys';

export interface LinkCacheOptions {
  /** Compiled links kept in memory (least recently used beyond this are dropped). */
  capacity?: number;
  /** Unknown host+slug pairs remembered. */
  negativeCapacity?: number;
  /** A cached entry older than this is refreshed in the background (a safety net for a missed NOTIFY). */
  ttlMs?: number;
  /** Lookups of keys the filter says cannot exist that may still go to the database, per second. */
  unknownLookupsPerSecond?: number;
  now?: () => number;
}

export interface LinkCache {
  /** The link for a request host and slug; synchronous when cached (the hot path never awaits then). */
  lookup(host: string, slug: string): CompiledLink | null | Promise<CompiledLink | null>;
  start(): Promise<void>;
  stop(): void;
  stats(): { links: number; negatives: number; databaseLookups: number; refused: number; filterBytes: number };
}

export interface LinkCacheDeps {
  db: Db;
  trackingHost: string;
  linkChanges: Pick<LinkChanges, 'subscribe'>;
  /** DOMAIN_VERIFICATION=dns: a link on a custom domain its organization has not verified is unknown. */
  requireVerifiedDomains: boolean;
}

/**
 * Compiled links keyed by host binding and slug. A link write anywhere drops the link and every
 * negative entry, a domain's verification every link on it; unknown keys sit in a bounded LRU
 * behind the key filter, whose misses are rate limited (docs/tracking.md, "Link cache").
 */
export function createLinkCache(deps: LinkCacheDeps, options: LinkCacheOptions = {}): LinkCache {
  const now = options.now ?? (() => performance.now());
  const ttlMs = options.ttlMs ?? 60_000;
  const hosts = new HostDomains(deps.trackingHost);
  const links = new CachedLinks(options.capacity ?? 100_000, { ttlMs, now });
  const unknown = new UnknownKeys(options.negativeCapacity ?? 10_000, { ttlMs, now, lookupsPerSecond: options.unknownLookupsPerSecond ?? 100 });
  const loads = new LinkLoads(deps, (key, link) => {
    if (!link) {
      links.delete(key);
      unknown.missing(key);
      return;
    }
    unknown.found(key);
    links.set(key, link);
  });
  let unsubscribe: (() => void) | undefined;

  return {
    lookup(host, slug) {
      const domain = hosts.domainOf(host);
      const key = cacheKey(domain, slug);
      const cached = links.peek(key);
      if (cached) {
        if (cached.stale) loads.load(key, domain, slug).catch(() => {});
        return cached.value;
      }
      if (unknown.knownMissing(key)) return null;
      const running = loads.running(key);
      if (running) return running;
      if (!unknown.mayLookUp(key)) return null;
      // No stored key holds U+0000 (Postgres text cannot), and the database would refuse the query.
      if (key.includes('\0')) return null;
      return loads.load(key, domain, slug);
    },
    async start() {
      await forEachLinkKey(deps.db, (domain, slug) => unknown.exists(cacheKey(domain, slug)));
      unsubscribe = deps.linkChanges.subscribe(linkChangeHandler({ db: deps.db, links, unknown, loads }));
    },
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
    stats: () => {
      const { negatives, refused, filterBytes } = unknown.stats();
      return { links: links.size, negatives, databaseLookups: loads.databaseLookups(), refused, filterBytes };
    },
  };
}
