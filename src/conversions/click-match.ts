import type { Queryable } from '../db/db';
import { waitForClick, type ClickWaitDeps } from '../tracking/click-arrival';
import { findAttributableClick, findLatestClickByGclid, type MatchedClick } from './conversions.repo';

/** What misses the wait for a fresh click id (src/tracking/click-arrival.ts) is caught by the late matcher. */
export interface MatchDeps extends ClickWaitDeps {
  db: Queryable;
}

/**
 * Finds the click a conversion belongs to, inside the caller's organization only:
 * the click id first (waiting briefly for a fresh one), else the latest click with the gclid.
 * Dropped clicks (bot, invalid, blocked) never attribute.
 */
export async function matchClick(deps: MatchDeps, orgId: string, input: { clickId?: string; gclid?: string }): Promise<MatchedClick | null> {
  const { clickId, gclid } = input;
  if (clickId !== undefined) {
    // A dropped click is found too, which ends the wait: it will never attribute.
    const lookup = await waitForClick(deps, clickId, async () => {
      const row = await findAttributableClick(deps.db, orgId, clickId);
      return row.found ? row : null;
    });
    if (lookup?.click) return lookup.click;
  }
  if (gclid !== undefined) return findLatestClickByGclid(deps.db, orgId, gclid);
  return null;
}
