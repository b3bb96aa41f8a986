/**
 * The uninstall checker: rounds of silent pushes to installs with push tokens, one node at a time
 * (a database advisory lock), each install at most once per interval (docs/uninstalls.md).
 */
import type { Db } from '../db/db';
import type { Clock } from '../shared/ids';
import { PROVIDER_PLATFORMS, type Provider, type PushClient, type PushOutcome } from './push.model';
import { dueInstalls, markUninstalled, recordChecks, type DueInstall, type QueueCursor } from './uninstalls.repo';

export interface UninstallCheckerOptions {
  /** UNINSTALL_CHECK_HOURS in ms: how long a check settles an install; 0 and the checker never starts. */
  intervalMs: number;
  /** How often a round starts (every hour, or every interval when that is shorter). */
  roundEveryMs: number;
  /** The first round's delay after start(), so a booting node serves first. */
  firstRoundAfterMs: number;
  /** Pushes tried per provider per round; the rest wait, first in the queue, for the next round. */
  maxPerRound: number;
  /** Installs read from the queue at a time. */
  batchSize: number;
  /** Pushes in flight at once, per provider. */
  concurrency: number;
  /** Failed sends in a row (outage, throttling, timeouts) after which a provider rests until the next round. */
  maxConsecutiveFailures: number;
}

export const HOUR_MS = 3_600_000;

export const DEFAULT_CHECKER_OPTIONS: Omit<UninstallCheckerOptions, 'intervalMs' | 'roundEveryMs'> = {
  firstRoundAfterMs: 60_000,
  maxPerRound: 50_000,
  batchSize: 500,
  concurrency: 16,
  maxConsecutiveFailures: 10,
};

/** 727_001 is the migrations' lock (src/db/migrate.ts). */
export const UNINSTALL_CHECK_LOCK = 727_002;

export interface ProviderSummary {
  /** Pushes tried (one stopped by a refused token exchange included); the round cap counts these. */
  attempted: number;
  delivered: number;
  uninstalled: number;
  rejected: number;
  failed: number;
  /** Why the provider stopped before its queue was done (credentials refused, an outage), or null. */
  stoppedBy: string | null;
}

export interface RoundSummary {
  /** false: another node held the lock and this one sent nothing. */
  ran: boolean;
  providers: Partial<Record<Provider, ProviderSummary>>;
}

export interface UninstallChecker {
  start(): void;
  runOnce(): Promise<RoundSummary>;
  stop(): Promise<void>;
}

export interface UninstallCheckerDeps {
  db: Db;
  clock: Clock;
  /** The configured providers; a provider left out is not checked. */
  clients: PushClient[];
  log?: (line: string) => void;
}

const PROVIDER_NAMES: Record<Provider, string> = { apns: 'APNs', fcm: 'FCM' };
const PROVIDER_SETTINGS: Record<Provider, string> = { apns: 'APNS_KEY_PATH, APNS_KEY_ID, APNS_TEAM_ID', fcm: 'FCM_CREDENTIALS' };

/** Runs `work` on every item, at most `limit` at once. */
async function eachWithin<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function createUninstallChecker(deps: UninstallCheckerDeps, options: UninstallCheckerOptions): UninstallChecker {
  const { db, clock, clients } = deps;
  const log = deps.log ?? ((line: string) => console.log(line));
  const stopping = new AbortController();
  let timer: Timer | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;

  async function checkProvider(client: PushClient, checkedBefore: Date): Promise<ProviderSummary> {
    const summary: ProviderSummary = { attempted: 0, delivered: 0, uninstalled: 0, rejected: 0, failed: 0, stoppedBy: null };
    let failuresInARow = 0;
    const settle = (outcome: PushOutcome) => {
      summary.attempted++;
      if (outcome.kind === 'refused') summary.stoppedBy ??= `refused: ${outcome.reason}`;
      if (outcome.kind === 'unavailable') {
        summary.failed++;
        if (++failuresInARow >= options.maxConsecutiveFailures) summary.stoppedBy ??= `${failuresInARow} failed sends in a row, the last: ${outcome.reason}`;
      } else failuresInARow = 0;
      if (outcome.kind === 'delivered') summary.delivered++;
      if (outcome.kind === 'token_rejected') summary.rejected++;
    };
    const resting = () => summary.stoppedBy !== null || stopping.signal.aborted;

    for (const platform of PROVIDER_PLATFORMS[client.provider]) {
      let cursor: QueueCursor | null = null;
      while (!resting() && summary.attempted < options.maxPerRound) {
        const limit = Math.min(options.batchSize, options.maxPerRound - summary.attempted);
        const batch = await dueInstalls(db, { platform, checkedBefore, cursor, limit, needsBundleId: client.provider === 'apns' });
        if (batch.length === 0) break;
        const last = batch[batch.length - 1]!;
        cursor = { checkedAt: last.uninstall_checked_at, id: last.id };
        const settled: DueInstall[] = [];
        const gone: DueInstall[] = [];
        await eachWithin(batch, options.concurrency, async (install) => {
          if (resting()) return;
          const outcome = await client.send({ token: install.push_token, bundleId: install.bundle_id }, stopping.signal);
          settle(outcome);
          if (outcome.kind === 'delivered' || outcome.kind === 'token_rejected') settled.push(install);
          if (outcome.kind === 'unregistered') gone.push(install);
        });
        const at = clock();
        await recordChecks(db, settled, at);
        for (const install of gone) {
          if (await markUninstalled(db, { orgId: install.org_id, installId: install.id, token: install.push_token, provider: client.provider, at })) summary.uninstalled++;
        }
        if (batch.length < limit) break;
      }
    }
    return summary;
  }

  async function runOnce(): Promise<RoundSummary> {
    const lock = await db.tryAdvisoryLock(UNINSTALL_CHECK_LOCK);
    if (!lock) return { ran: false, providers: {} };
    try {
      // Due: not checked in the last interval, less one round's gap, so each install is checked
      // in the first round after its interval ends rather than one round later.
      const checkedBefore = new Date(clock().getTime() - (options.intervalMs - options.roundEveryMs));
      const providers: RoundSummary['providers'] = {};
      for (const client of clients) {
        if (stopping.signal.aborted) break;
        const summary = await checkProvider(client, checkedBefore);
        providers[client.provider] = summary;
        report(client.provider, summary);
      }
      return { ran: true, providers };
    } finally {
      // Rounds are an hour or more apart: no connection is kept open between them.
      await Promise.all(clients.map((client) => client.close()));
      await lock.release();
    }
  }

  function report(provider: Provider, s: ProviderSummary) {
    if (s.attempted === 0 && s.stoppedBy === null) return;
    const name = PROVIDER_NAMES[provider];
    log(`uninstall checks: ${name} ${s.attempted} attempted, ${s.delivered} delivered, ${s.uninstalled} uninstalled, ${s.rejected} rejected, ${s.failed} failed`);
    if (s.stoppedBy && !stopping.signal.aborted) log(`uninstall checks: ${name} rests until the next round (${s.stoppedBy})`);
  }

  const tick = () => {
    if (stopped) return;
    running = runOnce()
      .catch((error) => log(`uninstall checks: the round failed: ${error instanceof Error ? error.message : error}`))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, options.roundEveryMs);
      });
  };

  return {
    start() {
      if (options.intervalMs <= 0 || stopped || timer !== undefined || running !== undefined) return;
      const configured = new Set(clients.map((client) => client.provider));
      if (configured.size === 0) return log('uninstall checks are off: neither APNs nor FCM is configured');
      for (const provider of ['apns', 'fcm'] as const) {
        if (configured.has(provider)) continue;
        log(`uninstall checks: ${PROVIDER_NAMES[provider]} is not configured (${PROVIDER_SETTINGS[provider]}): ${PROVIDER_PLATFORMS[provider].join(' and ')} installs are not checked`);
      }
      timer = setTimeout(tick, options.firstRoundAfterMs);
    },
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopping.abort();
      await running;
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}
