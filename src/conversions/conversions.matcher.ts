import type { Db } from '../db/db';
import type { Clock } from '../shared/ids';
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
 */
export interface LateMatcher {
  start(): void;
  runOnce(): Promise<string[]>;
  stop(): Promise<void>;
}

export function createLateMatcher(db: Db, clock: Clock, options: LateMatcherOptions = DEFAULT_LATE_MATCHER): LateMatcher {
  let timer: Timer | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  let lastErrorLogged = 0;
  const runOnce = () => matchLateConversions(db, new Date(clock().getTime() - options.windowMs));
  const tick = () => {
    if (stopped) return;
    running = runOnce()
      .catch((error) => {
        if (Date.now() - lastErrorLogged > 60_000) {
          lastErrorLogged = Date.now();
          console.error('late conversion matcher:', error instanceof Error ? error.message : error);
        }
      })
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, options.intervalMs);
      });
  };
  return {
    start() {
      if (timer === undefined && running === undefined && !stopped) timer = setTimeout(tick, options.intervalMs);
    },
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
