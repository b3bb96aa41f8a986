import type { Queryable } from '../db/db';
import type { Clock } from '../shared/ids';
import { MINUTE_MS, minuteOf, REALTIME_WINDOW_MINUTES, type ClickCounter } from '../tracking/counts/click-counter';
import type { MinuteCount } from '../tracking/counts/click-counts.repo';
import { selectClickCounts, selectStoredCounts } from './realtime.repo';

/** GET /api/dashboard/realtime: the organization's last 15 minutes, the current one included, oldest first. */
export interface Realtime {
  window_minutes: typeof REALTIME_WINDOW_MINUTES;
  clicks: number;
  installs: number;
  conversions: number;
  per_minute: { minute: string; clicks: number; installs: number; conversions: number }[];
}

export interface RealtimeDeps {
  db: Queryable;
  clock: Clock;
  clickCounter: Pick<ClickCounter, 'withShared'>;
}

/**
 * The counters now. Clicks are the shared rows every node adds to, plus what this thread has
 * counted and not added yet, read while this thread adds nothing, so they agree. Installs and
 * conversions are counted where they are stored.
 */
export async function realtimeSnapshot(deps: RealtimeDeps, orgId: string): Promise<Realtime> {
  const current = minuteOf(deps.clock().getTime());
  const first = current - (REALTIME_WINDOW_MINUTES - 1) * MINUTE_MS;
  const since = new Date(first);
  const [clicks, stored] = await Promise.all([
    deps.clickCounter.withShared(orgId, () => selectClickCounts(deps.db, orgId, since)),
    selectStoredCounts(deps.db, orgId, since),
  ]);
  const minutes = Array.from({ length: REALTIME_WINDOW_MINUTES }, (_, i) => ({ minute: first + i * MINUTE_MS, clicks: 0, installs: 0, conversions: 0 }));
  const add = (counts: MinuteCount[], field: 'clicks' | 'installs' | 'conversions') => {
    for (const { minute, count } of counts) {
      const slot = minutes[(minute - first) / MINUTE_MS];
      if (slot) slot[field] += count;
    }
  };
  add(clicks, 'clicks');
  add(stored.installs, 'installs');
  add(stored.conversions, 'conversions');
  const total = (field: 'clicks' | 'installs' | 'conversions') => minutes.reduce((sum, slot) => sum + slot[field], 0);
  return {
    window_minutes: REALTIME_WINDOW_MINUTES,
    clicks: total('clicks'),
    installs: total('installs'),
    conversions: total('conversions'),
    per_minute: minutes.map((slot) => ({ ...slot, minute: new Date(slot.minute).toISOString() })),
  };
}
