import type { Db } from '../../db/db';
import { Lru } from '../../shared/cache';
import { findCampaignForPixel, type CampaignRow } from './lookups.repo';

/**
 * Campaigns as the impression pixel needs them, by id or external id. Campaign writes do not
 * publish changes, so entries (found or not) live for a short time only; concurrent misses for
 * one key share a single query.
 */
export interface CampaignCache {
  lookup(campaign: string): CampaignRow | null | Promise<CampaignRow | null>;
}

export function createCampaignCache(deps: { db: Db }, options: { capacity?: number; ttlMs?: number; now?: () => number } = {}): CampaignCache {
  const entries = new Lru<string, CampaignRow | null>(options.capacity ?? 10_000, { ttlMs: options.ttlMs ?? 30_000, now: options.now });
  const inflight = new Map<string, Promise<CampaignRow | null>>();
  return {
    lookup(campaign) {
      const cached = entries.get(campaign);
      if (cached !== undefined) return cached;
      const running = inflight.get(campaign);
      if (running) return running;
      // No stored id holds U+0000 (Postgres text cannot), and the database would refuse the query.
      if (campaign.includes('\0')) return null;
      const promise = findCampaignForPixel(deps.db, campaign).finally(() => inflight.delete(campaign));
      void promise.then((row) => entries.set(campaign, row)).catch(() => {});
      inflight.set(campaign, promise);
      return promise;
    },
  };
}
