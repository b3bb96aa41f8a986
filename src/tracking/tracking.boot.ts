import type { Config } from '../config/config';
import type { Db } from '../db/db';
import type { LinkChanges } from './redirect/link-cache/link-changes';
import type { IpHasher } from '../shared/crypto/ip-hash';
import { createCampaignCache, type CampaignCache } from './redirect/campaign-cache';
import { createClickPipeline, type ClickPipeline, type ClickPipelineDeps, type ClickPipelineOptions } from './pipeline/click-pipeline';
import { createClickWriterThread } from './pipeline/click-writer.thread';
import { ipIntelOptionsFor } from '../ipintel/ip-intel';
import { createIngestion } from './enrich/ingest';
import { createLinkCache, type LinkCache, type LinkCacheOptions } from './redirect/link-cache/link-cache';
import { replayListenerJournals } from './listeners/listener-journals';

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
  const { db, config } = deps;
  const clickPipeline = createClickPipeline(clickPipelineDeps(config, db, deps.ipHasher, config.dataDir), {
    backlogLimit: config.clickBacklog,
    journal: { syncMs: config.journalSyncMs },
    ...options.pipeline,
  });
  await clickPipeline.start();
  if (db.kind === 'postgres') {
    try {
      await replayListenerJournals(config.dataDir, (dir) => createClickPipeline(clickPipelineDeps(config, db, deps.ipHasher, dir)));
    } catch (error) {
      await clickPipeline.stop();
      throw error;
    }
  }
  const linkCache = createLinkCache(
    { db, trackingHost: config.trackingHost, linkChanges: deps.linkChanges, requireVerifiedDomains: config.domainVerification === 'dns' },
    options.linkCache,
  );
  try {
    await linkCache.start();
  } catch (error) {
    await clickPipeline.stop();
    throw error;
  }
  return { linkCache, campaignCache: createCampaignCache({ db }), clickPipeline };
}

/**
 * Where a click pipeline journaling under `dataDir` writes: on Postgres, a writer thread with its
 * own connections, and on the embedded store's own thread a writer thread with a port to it, so
 * the journaling thread only answers redirects; a PGlite in the main thread's memory keeps the
 * writer on its event loop.
 */
export function clickPipelineDeps(
  config: Pick<Config, 'databaseUrl' | 'sessionSecret' | 'dataDir' | 'geoCityDb'>,
  db: Db,
  ipHasher: IpHasher,
  dataDir: string,
): ClickPipelineDeps {
  const { databaseUrl, sessionSecret } = config;
  const ipIntelOptions = ipIntelOptionsFor(config);
  if (db.kind === 'postgres' && databaseUrl) {
    return { db, dataDir, writer: (setAsidePath) => createClickWriterThread({ databaseUrl, ipHashSecret: sessionSecret, setAsidePath, ipIntelOptions }) };
  }
  const { storeChannel } = db;
  if (storeChannel) {
    return { db, dataDir, writer: (setAsidePath) => createClickWriterThread({ storePort: () => storeChannel.call(db), ipHashSecret: sessionSecret, setAsidePath, ipIntelOptions }) };
  }
  return { db, dataDir, enrich: createIngestion({ ipHasher }, { ipIntelOptions }).enrich };
}

/** Stops taking changes and writes every journaled record to Postgres. */
export async function stopTracking(tracking: Tracking): Promise<void> {
  tracking.linkCache.stop();
  await tracking.clickPipeline.stop();
}
