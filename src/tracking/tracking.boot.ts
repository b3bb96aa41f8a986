import type { Config } from '../config';
import type { Db } from '../db/db';
import type { LinkChanges } from '../links/link-changes';
import type { IpHasher } from '../shared/ip-hash';
import { createCampaignCache, type CampaignCache } from './campaign-cache';
import { createClickPipeline, type ClickPipeline, type ClickPipelineOptions } from './click-pipeline';
import { createIngestion } from './enrich/ingest';
import { createLinkCache, type LinkCache, type LinkCacheOptions } from './link-cache';

export interface Tracking {
  linkCache: LinkCache;
  campaignCache: CampaignCache;
  clickPipeline: ClickPipeline;
}

/**
 * Starts the tracking host's per-node parts: the journal is replayed into Postgres before the
 * node serves, and the link cache knows every existing link key before the first request.
 */
export async function startTracking(
  deps: { config: Config; db: Db; linkChanges: LinkChanges; ipHasher: IpHasher },
  options: { pipeline?: ClickPipelineOptions; linkCache?: LinkCacheOptions } = {},
): Promise<Tracking> {
  const ingestion = createIngestion({ ipHasher: deps.ipHasher });
  const clickPipeline = createClickPipeline({ db: deps.db, dataDir: deps.config.dataDir, enrich: (click) => ingestion.enrich(click) }, options.pipeline);
  await clickPipeline.start();
  const linkCache = createLinkCache({ db: deps.db, trackingHost: deps.config.trackingHost, linkChanges: deps.linkChanges }, options.linkCache);
  try {
    await linkCache.start();
  } catch (error) {
    await clickPipeline.stop();
    throw error;
  }
  return { linkCache, campaignCache: createCampaignCache({ db: deps.db }), clickPipeline };
}

/** Stops taking changes and writes every journaled record to Postgres. */
export async function stopTracking(tracking: Tracking): Promise<void> {
  tracking.linkCache.stop();
  await tracking.clickPipeline.stop();
}
