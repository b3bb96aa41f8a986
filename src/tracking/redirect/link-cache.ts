import type { Db } from '../../db/db';
import { compileLandingHosts, type LandingHosts } from '../../links/landing-hosts';
import { changedDomain, type LinkChanges } from '../../links/link-changes';
import { compileSmartLink, type SmartLink } from '../../smartlinks/smart-link';
import { KeyFilter } from './key-filter';
import { checkHttpUrl } from './landing-url';
import { Lru } from './lru';
import { findLinkById, findLinkByKey, forEachLinkKey, type LinkRow } from './lookups.repo';

/** A link as the redirect needs it, checked once when it enters the cache. */
export interface CompiledLink {
  id: string;
  orgId: string;
  campaignId: string | null;
  domain: string;
  slug: string;
  /** 'tracking' or 'smart', and 'active' or 'paused', as stored (edge ingest takes both kinds). */
  kind: string;
  status: string;
  /** Only active tracking links answer /c; paused links and other kinds answer 404. */
  serves: boolean;
  /** The validated destination, or null when the link has none usable (then a `url` is required). */
  destination: string | null;
  /** Where a `url` may send the visitor; null: anywhere (the transparent redirect's default). */
  landingHosts: LandingHosts | null;
  /** An active smart link's routing, compiled once here; null for every link /l does not serve. */
  smart: SmartLink | null;
}

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
  const trackingHost = normaliseHost(deps.trackingHost);
  const keyById = new Map<string, string>();
  const links = new Lru<string, CompiledLink>(options.capacity ?? 100_000, {
    ttlMs,
    now,
    onEvict: (key, link) => {
      if (keyById.get(link.id) === key) keyById.delete(link.id);
    },
  });
  const negatives = new Lru<string, true>(options.negativeCapacity ?? 10_000, { ttlMs, now });
  const filter = new KeyFilter();
  const budget = tokenBucket(options.unknownLookupsPerSecond ?? 100, now);
  const inflight = new Map<string, Promise<CompiledLink | null>>();
  /** Bumped by every link change: a lookup that started before it must not cache its answer. */
  let epoch = 0;
  let databaseLookups = 0;
  let refused = 0;
  let unsubscribe: (() => void) | undefined;

  const load = (key: string, domain: string, slug: string): Promise<CompiledLink | null> => {
    const running = inflight.get(key);
    if (running) return running;
    const startedAt = epoch;
    databaseLookups++;
    const promise = findLinkByKey(deps.db, domain, slug).then(
      (row) => {
        inflight.delete(key);
        const link = row && (row.domain_verified || !deps.requireVerifiedDomains) ? compile(row) : null;
        if (epoch === startedAt) remember(key, link);
        return link;
      },
      (error) => {
        inflight.delete(key);
        throw error;
      },
    );
    inflight.set(key, promise);
    return promise;
  };

  const remember = (key: string, link: CompiledLink | null) => {
    if (!link) {
      links.delete(key);
      negatives.set(key, true);
      return;
    }
    negatives.delete(key);
    filter.add(key);
    const previousKey = keyById.get(link.id);
    if (previousKey !== undefined && previousKey !== key) links.delete(previousKey);
    links.set(key, link);
    keyById.set(link.id, key);
  };

  const onChange = (change: string) => {
    epoch++;
    // The change may have created the key some earlier request found missing (a new link, a new domain).
    negatives.clear();
    const domain = changedDomain(change);
    if (domain !== undefined) {
      const prefix = cacheKey(domain, '');
      for (const key of [...keyById.values()]) if (key.startsWith(prefix)) links.delete(key);
      return;
    }
    const linkId = change;
    const key = keyById.get(linkId);
    if (key !== undefined) links.delete(key);
    void findLinkById(deps.db, linkId)
      .then((row) => {
        if (row) filter.add(cacheKey(row.domain, row.slug));
      })
      .catch((error) => console.error('link cache: reloading a changed link failed', error));
  };

  let lastHost = '';
  let lastNormalised = '';
  return {
    lookup(host, slug) {
      // Requests to one node mostly carry the same Host: the last one is remembered.
      if (host !== lastHost) {
        lastHost = host;
        lastNormalised = normaliseHost(host);
      }
      const normalised = lastNormalised;
      const domain = normalised === trackingHost ? '' : normalised;
      const key = cacheKey(domain, slug);
      const cached = links.peek(key);
      if (cached) {
        if (cached.stale) load(key, domain, slug).catch(() => {});
        return cached.value;
      }
      if (negatives.get(key)) return null;
      const running = inflight.get(key);
      if (running) return running;
      if (!filter.mightContain(key) && !budget()) {
        refused++;
        return null;
      }
      // No stored key holds U+0000 (Postgres text cannot), and the database would refuse the query.
      if (key.includes('\0')) return null;
      return load(key, domain, slug);
    },
    async start() {
      await forEachLinkKey(deps.db, (domain, slug) => filter.add(cacheKey(domain, slug)));
      unsubscribe = deps.linkChanges.subscribe(onChange);
    },
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
    stats: () => ({ links: links.size, negatives: negatives.size, databaseLookups, refused, filterBytes: filter.bytes }),
  };
}

function compile(row: LinkRow): CompiledLink {
  const destination = row.destination ? checkHttpUrl(row.destination) : null;
  return {
    id: row.id,
    orgId: row.org_id,
    campaignId: row.campaign_id,
    domain: row.domain,
    slug: row.slug,
    kind: row.kind,
    status: row.status,
    serves: row.kind === 'tracking' && row.status === 'active',
    destination: destination?.ok ? destination.url : null,
    landingHosts: Array.isArray(row.allowed_landing_hosts) ? compileLandingHosts(row.allowed_landing_hosts) : null,
    smart: row.kind === 'smart' && row.status === 'active' ? compileSmartLink(row) : null,
  };
}

function cacheKey(domain: string, slug: string): string {
  return `${domain}\n${slug}`;
}

/**
 * A Host as links store their domain: lower case, port kept (a link may be bound to
 * go.example.com:8443), a trailing dot on the name dropped.
 */
export function normaliseHost(host: string): string {
  const lower = host.toLowerCase();
  const colon = lower.lastIndexOf(':');
  const name = colon > lower.lastIndexOf(']') ? lower.slice(0, colon) : lower;
  const port = name.length < lower.length ? lower.slice(name.length) : '';
  return name.endsWith('.') ? `${name.slice(0, -1)}${port}` : lower;
}

/** Allows `perSecond` calls per second on average, with bursts up to the same number. */
function tokenBucket(perSecond: number, now: () => number): () => boolean {
  let tokens = perSecond;
  let last = now();
  return () => {
    const at = now();
    tokens = Math.min(perSecond, tokens + ((at - last) / 1000) * perSecond);
    last = at;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}
