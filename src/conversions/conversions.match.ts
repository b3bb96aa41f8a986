import { decodeTime } from 'ulid';
import type { Queryable } from '../db/db';
import type { Clock } from '../shared/ids';
import { findAttributableClick, findLatestClickByGclid, type MatchedClick } from './conversions.repo';

/**
 * How long a conversion waits for a click still in the redirect pipeline. The click id is a ULID
 * minted at the redirect, so its time says whether the click is fresh enough to wait for; what
 * misses the wait is caught by the late matcher.
 */
export interface MatchTiming {
  /** A click id younger than this may still be on its way to Postgres. */
  freshClickMs: number;
  /** Clock skew tolerated between the node that minted the click id and this one. */
  futureSkewMs: number;
  /** Pauses between lookups while waiting; their sum bounds the wait (about 1.5 s). */
  retryDelaysMs: readonly number[];
}

export const DEFAULT_MATCH_TIMING: MatchTiming = {
  freshClickMs: 10_000,
  futureSkewMs: 2_000,
  retryDelaysMs: [20, 40, 80, 160, 250, 250, 250, 250, 250],
};

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/** The time a ULID click id was minted, or null when the id is not a ULID. */
export function clickIdTime(clickId: string): number | null {
  if (!ULID_PATTERN.test(clickId)) return null;
  try {
    return decodeTime(clickId.toUpperCase());
  } catch {
    return null;
  }
}

/** True when a click with this id could still be in the pipeline at `now`. */
export function isFreshClickId(clickId: string, now: number, timing: MatchTiming = DEFAULT_MATCH_TIMING): boolean {
  const minted = clickIdTime(clickId);
  if (minted === null) return false;
  return minted >= now - timing.freshClickMs && minted <= now + timing.futureSkewMs;
}

export interface MatchDeps {
  db: Queryable;
  clock: Clock;
  timing?: MatchTiming;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Finds the click a conversion belongs to, inside the caller's organization only:
 * the click id first (waiting briefly for a fresh one), else the latest click with the gclid.
 * Dropped clicks (bot, invalid, blocked) never attribute.
 */
export async function matchClick(
  { db, clock, timing = DEFAULT_MATCH_TIMING, sleep = Bun.sleep }: MatchDeps,
  orgId: string,
  input: { clickId?: string; gclid?: string },
): Promise<MatchedClick | null> {
  if (input.clickId !== undefined) {
    const lookup = await findAttributableClick(db, orgId, input.clickId);
    if (lookup.found) {
      if (lookup.click) return lookup.click;
    } else if (isFreshClickId(input.clickId, clock().getTime(), timing)) {
      for (const delay of timing.retryDelaysMs) {
        await sleep(delay);
        const again = await findAttributableClick(db, orgId, input.clickId);
        if (again.click) return again.click;
        if (again.found) break;
      }
    }
  }
  if (input.gclid !== undefined) return findLatestClickByGclid(db, orgId, input.gclid);
  return null;
}
