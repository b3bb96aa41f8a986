import type { Db } from '../db/db';
import { errorCode } from '../db/errors';
import { backoffDelay, type Backoff } from '../shared/backoff';
import type { IpHasher } from '../shared/crypto/ip-hash';
import { periodicPass, type PeriodicPass } from '../shared/periodic-pass';
import { claimDueRequests, completeRequest, recordFailure, scheduleSweep, type ClaimedRequest } from './erasure-requests.repo';
import { addCounts, erasePass } from './erasure.service';

export interface ErasureRunnerOptions {
  intervalMs: number;
  /** How long after the first pass the sweep runs: clicks still in another node's journal land by then (docs/privacy.md). */
  sweepMs: number;
  /** How long a claim lasts; a node that dies mid-pass frees its requests after this. */
  leaseMs: number;
  batchSize: number;
  /** Failed passes in a row before a request is marked failed. */
  maxAttempts: number;
  retry: Backoff;
}

export const DEFAULT_ERASURE_RUNNER: Omit<ErasureRunnerOptions, 'sweepMs'> = {
  intervalMs: 2000,
  leaseMs: 5 * 60_000,
  batchSize: 5,
  maxAttempts: 8,
  retry: { min: 5_000, max: 15 * 60_000, jitter: { low: 0.8, width: 0.4 } },
};

export interface ErasureRunnerDeps {
  db: Db;
  ipHasher: IpHasher;
  /** Writes out every click this node has answered, so none of the subject's lands after the pass. */
  flushClicks: () => Promise<void>;
}

/**
 * Finishes pending erasure requests, on every node (claims are leased with SKIP LOCKED). Each
 * request gets two passes, the first at once and the sweep `sweepMs` later; it is completed
 * after the sweep. A run resolves to the number of passes made.
 */
export type ErasureRunner = PeriodicPass<number>;

export function createErasureRunner(deps: ErasureRunnerDeps, options: ErasureRunnerOptions): ErasureRunner {
  return periodicPass('erasure requests', options.intervalMs, async () => {
    const claimed = await claimDueRequests(deps.db, options.batchSize, options.leaseMs);
    if (claimed.length === 0) return 0;
    await deps.flushClicks();
    // One failing request must not hold up the others; the first failure is reported.
    let firstError: unknown;
    for (const request of claimed) await runRequest(deps, options, request).catch((error: unknown) => (firstError ??= error));
    if (firstError !== undefined) throw firstError;
    return claimed.length;
  });
}

async function runRequest(deps: ErasureRunnerDeps, options: ErasureRunnerOptions, request: ClaimedRequest): Promise<void> {
  try {
    await deps.db.transaction(async (tx) => {
      const counts = addCounts(request.counts, await erasePass(tx, deps.ipHasher, request));
      if (request.sweptOnce || options.sweepMs === 0) await completeRequest(tx, request.id, counts);
      else await scheduleSweep(tx, request.id, counts, options.sweepMs);
    });
  } catch (error) {
    // Only the error's class or SQLSTATE is kept: a database message may quote the subject.
    const reason = `erasure pass failed (${errorCode(error) ?? (error instanceof Error ? error.name : 'error')})`;
    const retryMs = request.attempts >= options.maxAttempts ? null : Math.round(backoffDelay(options.retry, request.attempts - 1));
    await recordFailure(deps.db, request.id, reason, retryMs);
    throw error;
  }
}
