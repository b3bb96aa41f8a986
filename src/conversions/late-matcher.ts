import type { Db } from '../db/db';
import type { Clock } from '../shared/ids';
import { periodicPass, type PeriodicPass } from '../shared/periodic-pass';
import { matchLateConversions } from './conversions.repo';

export interface LateMatcherOptions {
  intervalMs: number;
  /** Unmatched conversions younger than this are re-matched on every pass. */
  windowMs: number;
}

export const DEFAULT_LATE_MATCHER: LateMatcherOptions = { intervalMs: 2000, windowMs: 15 * 60_000 };

/**
 * Matches conversions whose click reached Postgres only after the conversion was stored (the
 * click was still in a node's pipeline, or Postgres was briefly away). Every node may run it:
 * an UPDATE re-checks `NOT matched`, so two nodes never match the same conversion twice.
 * A run resolves to the ids of the conversions it matched.
 */
export type LateMatcher = PeriodicPass<string[]>;

export function createLateMatcher(db: Db, clock: Clock, options: LateMatcherOptions = DEFAULT_LATE_MATCHER): LateMatcher {
  return periodicPass('late conversion matcher', options.intervalMs, () => matchLateConversions(db, new Date(clock().getTime() - options.windowMs)));
}
