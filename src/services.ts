import { join } from 'node:path';
import { absentMirror, startMirror } from './analytics/mirror/mirror.boot';
import type { Mirror } from './analytics/mirror/mirror';
import { createApiKeyCache, type ApiKeyCache } from './auth/api-key-cache';
import { createSdkKeyCache, type SdkKeyCache } from './auth/sdk-key-cache';
import { createKeyChanges, type KeyChanges } from './auth/key-changes';
import type { Config } from './config/config';
import type { Db } from './db/db';
import { systemTxtResolver, type TxtResolver } from './domains/txt-lookup';
import { memoryRateLimiter, redisRateLimiter, type RateLimiter } from './http/rate-limit';
import { ipIntelOptionsFor, openIpIntel, type IpIntel } from './ipintel/ip-intel';
import { createLinkChanges, type LinkChanges } from './tracking/redirect/link-cache/link-changes';
import { createLateMatcher, type LateMatcher } from './conversions/late-matcher';
import { createPartitionKeeper, type KeeperRound } from './partitions/partition-keeper';
import type { PeriodicPass } from './shared/periodic-pass';
import { createErasureRunner, DEFAULT_ERASURE_RUNNER, type ErasureRunner } from './privacy/erasure-runner';
import { createPendingBeacons, type PendingBeacons } from './protect/beacon/pending-beacons';
import { createPostbackWorker, DEFAULT_WORKER_OPTIONS, type PostbackWorker } from './postbacks/postbacks.worker';
import { createInstallForwarder, type InstallForwarder } from './sdk/forwarder.service';
import { systemClock, type Clock } from './shared/ids';
import { createIpHasher, type IpHasher } from './shared/crypto/ip-hash';
import { createWriteBurst, type WriteBurst } from './shared/write-burst';
import type { TrackingListeners } from './tracking/listeners/listeners';
import { startTracking, stopTracking, type Tracking } from './tracking/tracking.boot';
import type { UninstallChecker } from './uninstalls/checker';
import { createUninstallCheckerFor } from './uninstalls/uninstalls.boot';
import { worstWriterState } from './tracking/pipeline/click-pipeline';
import type { ClickWriterHealth } from './health/health.routes';
import { createClickCounter, type ClickCounter } from './tracking/counts/click-counter';
import { realtimeSnapshot } from './analytics/realtime';
import { createRealtimeStreams, type RealtimeStreams } from './dashboard/realtime/realtime-streams';

/**
 * The long-lived parts one node runs beside its routes. main.ts builds them once; tests build
 * them per app instance. `stop()` flushes and closes in dependency order.
 */
export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  rateLimiter: RateLimiter;
  /** Keys this node found live, for routes whose writes re-check them (src/auth/api-key-cache.ts). */
  apiKeyCache: ApiKeyCache;
  /** Apps behind SDK keys, for a few seconds (src/auth/sdk-key-cache.ts). */
  sdkKeyCache: SdkKeyCache;
  /** Revocations and new limits of keys, to every node's key caches (src/auth/key-changes.ts). */
  keyChanges: KeyChanges;
  ipHasher: IpHasher;
  /** Country, region, city, AS and IP type of an address, each database loaded on first use (src/ipintel/ip-intel.ts). */
  ipIntel: IpIntel;
  linkChanges: LinkChanges;
  /** DNS TXT lookups for custom-domain verification (src/domains/txt-lookup.ts); tests pass a fake. */
  resolveTxt: TxtResolver;
  /** Tracking host (src/tracking/): link cache, campaign cache, and the click pipeline with `clickPipeline.flush()`. */
  linkCache: Tracking['linkCache'];
  campaignCache: Tracking['campaignCache'];
  clickPipeline: Tracking['clickPipeline'];
  /** DuckDB analytics mirror: read-side queries and catchUp() (src/analytics/mirror/mirror.ts). */
  mirror: Mirror;
  /** Clicks this thread answered, per organization and minute, added to the shared counters twice a second (src/tracking/counts/click-counter.ts). */
  clickCounter: ClickCounter;
  /**
   * The realtime event streams open on this node (src/dashboard/realtime/realtime-streams.ts);
   * main.ts closes them before it waits for the requests in flight.
   */
  realtimeStreams: RealtimeStreams;
  /** Sends queued outbound postbacks (src/postbacks/postbacks.worker.ts). */
  postbackWorker: PostbackWorker;
  /** Rows the hot write paths commit; while they pour in, the mirror waits (src/shared/write-burst.ts). */
  writeBurst: WriteBurst;
  /** Matches conversions whose click landed after them (src/conversions/late-matcher.ts). */
  lateMatcher: LateMatcher;
  /** Applies landing-page beacons whose click landed after them (src/protect/beacon/pending-beacons.ts). */
  pendingBeacons: PendingBeacons;
  /** Makes day partitions ahead and runs retention, hourly (src/partitions/partition-keeper.ts). */
  partitionKeeper: PeriodicPass<KeeperRound>;
  /** Finishes pending erasure requests, on every node (src/privacy/erasure-runner.ts). */
  erasureRunner: ErasureRunner;
  /** Sends installs to an app's ad-platform forwarder, in memory only (src/sdk/forwarder.service.ts). */
  installForwarder: InstallForwarder;
  /** Silent pushes that find uninstalled apps, one node at a time (src/uninstalls/checker.ts). */
  uninstallChecker: UninstallChecker;
  /**
   * Takes the node's tracking listener threads (main.ts starts them once it listens): their
   * backlog holds the mirror back like the main pipeline's, and stop() writes their journals out
   * beside the main pipeline's.
   */
  adoptListeners(listeners: Pick<TrackingListeners, 'pending' | 'writerState' | 'stop'>): void;
  /** Whether this node's answered clicks reach the database, with the backlog of all its threads. */
  clickWriterHealth(): ClickWriterHealth;
  /**
   * `deadline` (a Date.now() time): when the process will be ended whatever is still running
   * (main.ts). The clicks are written first, whatever it takes; the mirror's last round gets
   * what is left, less CLOSE_RESERVE_MS.
   */
  stop(options?: { deadline?: number }): Promise<void>;
}

/** What a stop keeps, after the mirror's last round, for closing DuckDB and the store. */
const CLOSE_RESERVE_MS = 5_000;

export interface ServicesOptions {
  clock?: Clock;
  /** The DuckDB file; DATA_DIR/analytics.duckdb by default. */
  mirrorPath?: string;
  /** false: no DuckDB mirror (absentMirror()). For tests that never read it; main.ts keeps it. */
  mirror?: boolean;
  /**
   * false: the postback worker, the late matcher, the pending beacons, the erasure runner and the
   * uninstall checker are built but not started (runOnce() still works), and link and key changes from other nodes
   * are not listened for; this node's own still apply.
   */
  workers?: boolean;
  /** The TXT lookup of domain verification; node:dns by default. */
  resolveTxt?: TxtResolver;
}

export async function createServices(config: Config, db: Db, options: ServicesOptions = {}): Promise<Services> {
  const workers = options.workers ?? true;
  const rateLimiter = config.redisUrl ? redisRateLimiter(config.redisUrl) : memoryRateLimiter();
  const linkChanges = createLinkChanges(db);
  if (workers) await linkChanges.start();
  const apiKeyCache = createApiKeyCache(db);
  const sdkKeyCache = createSdkKeyCache(db);
  const keyChanges = createKeyChanges(db, { apiKeyCache, sdkKeyCache });
  if (workers) await keyChanges.start();
  const ipHasher = createIpHasher(config.sessionSecret);
  const clock = options.clock ?? systemClock;
  // Every click journaled is counted for the realtime counters the moment it is answered.
  const clickCounter = createClickCounter({ db, clock });
  const tracking = await startTracking({ config, db, linkChanges, ipHasher }, { pipeline: { onClick: (click) => clickCounter.count(click.org_id, click.created_at) } });
  let listeners: Pick<TrackingListeners, 'pending' | 'writerState' | 'stop'> | undefined;
  const writeBurst = createWriteBurst();
  // The mirror waits while redirects have a backlog or conversions and installs pour in:
  // answering comes first (docs/analytics-mirror.md).
  const mirror =
    options.mirror === false
      ? absentMirror()
      : await startMirror(
          config,
          db,
          options.mirrorPath,
          () => tracking.clickPipeline.pending() > 0 || (listeners?.pending() ?? 0) > 0 || writeBurst.busy(),
        );
  const postbackWorker = createPostbackWorker(db, {
    ...DEFAULT_WORKER_OPTIONS,
    allowPrivate: config.postbackAllowPrivate,
    userAgent: `svc-postback/${config.version}`,
    hostRatePerSecond: config.postbackHostRate,
    hostBurst: config.postbackHostBurst,
  });
  const lateMatcher = createLateMatcher(db, options.clock ?? systemClock);
  const pendingBeacons = createPendingBeacons(db, options.clock ?? systemClock);
  const uninstallChecker = createUninstallCheckerFor(config, { db, clock: options.clock ?? systemClock });
  const erasureRunner = createErasureRunner(
    { db, ipHasher, flushClicks: () => tracking.clickPipeline.flush() },
    { ...DEFAULT_ERASURE_RUNNER, sweepMs: config.erasureSweepSeconds * 1000 },
  );
  if (workers) {
    erasureRunner.start();
    postbackWorker.start();
    lateMatcher.start();
    pendingBeacons.start();
    uninstallChecker.start();
  }
  const partitionKeeper = createPartitionKeeper({ db, clock, retention: config.retentionDays, daysAhead: config.partitionsAheadDays });
  if (workers) partitionKeeper.start();
  const installForwarder = createInstallForwarder({ db, config });
  clickCounter.start();
  const realtimeStreams = createRealtimeStreams((orgId) => realtimeSnapshot({ db, clock, clickCounter }, orgId));
  return {
    config,
    db,
    clock,
    rateLimiter,
    apiKeyCache,
    sdkKeyCache,
    keyChanges,
    ipHasher,
    ipIntel: openIpIntel(ipIntelOptionsFor(config)),
    linkChanges,
    resolveTxt: options.resolveTxt ?? systemTxtResolver,
    ...tracking,
    mirror,
    clickCounter,
    realtimeStreams,
    writeBurst,
    postbackWorker,
    lateMatcher,
    pendingBeacons,
    erasureRunner,
    partitionKeeper,
    installForwarder,
    uninstallChecker,
    adoptListeners(adopted) {
      listeners = adopted;
    },
    clickWriterHealth: () => ({
      writer: worstWriterState([tracking.clickPipeline.writerState(), listeners?.writerState() ?? 'ok']),
      backlog: tracking.clickPipeline.pending() + (listeners?.pending() ?? 0),
    }),
    async stop({ deadline }: { deadline?: number } = {}) {
      // Every part is stopped even when one fails (a flush refused by an unreachable database,
      // say): a part left running would poll a closed database for as long as the process lives.
      // The mirror is last, after every flusher, so the rows they wrote reach DuckDB before it closes.
      const failures: unknown[] = [];
      const parts = [
        async () => realtimeStreams.close(),
        () => installForwarder.stop(),
        // The listeners' journals and this thread's are written side by side.
        () => settleAll([stopTracking(tracking), listeners?.stop()]),
        () => clickCounter.stop(),
        () => postbackWorker.stop(),
        () => lateMatcher.stop(),
        () => pendingBeacons.stop(),
        () => erasureRunner.stop(),
        () => partitionKeeper.stop(),
        () => uninstallChecker.stop(),
        () => linkChanges.stop(),
        () => keyChanges.stop(),
        () => rateLimiter.close(),
        () => mirror.stop({ budgetMs: deadline === undefined ? undefined : deadline - Date.now() - CLOSE_RESERVE_MS }),
      ];
      for (const stopPart of parts) await stopPart().catch((error: unknown) => failures.push(error));
      throwFailures(failures);
    },
  };
}

/** Waits for every promise; then fails with the first failure, or all of them. */
async function settleAll(running: (Promise<void> | undefined)[]): Promise<void> {
  const outcomes = await Promise.allSettled(running);
  throwFailures(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : [])));
}

function throwFailures(failures: unknown[]): void {
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} services failed to stop`);
}
