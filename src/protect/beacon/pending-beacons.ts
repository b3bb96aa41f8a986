import type { Db } from '../../db/db';
import type { Clock } from '../../shared/ids';
import { periodicPass, type PeriodicPass } from '../../shared/periodic-pass';
import { deletePendingBeacons, landedPendingBeacons } from './beacon.repo';
import { applyBeacon } from './beacon.service';

export interface PendingBeaconOptions {
  intervalMs: number;
  /** A pending beacon whose click has not landed after this long is deleted. */
  keepMs: number;
  /** Beacons applied per run at most; the rest wait for the next run. */
  batch: number;
}

export const DEFAULT_PENDING_BEACONS: PendingBeaconOptions = { intervalMs: 2000, keepMs: 15 * 60_000, batch: 500 };

/**
 * Applies beacons that arrived before their click reached Postgres (beacon.service.ts,
 * recordBeacon) once it has, and forgets those whose click never came. Every node may run it:
 * applying a beacon twice merges the same values and scores the same.
 */
export type PendingBeacons = PeriodicPass<{ applied: number; expired: number }>;

export function createPendingBeacons(db: Db, clock: Clock, options: PendingBeaconOptions = DEFAULT_PENDING_BEACONS): PendingBeacons {
  return periodicPass('pending beacons', options.intervalMs, async () => {
    const landed = await landedPendingBeacons(db, options.batch);
    for (const { click, fields } of landed) await applyBeacon({ db, clock }, click, fields);
    const expired = await deletePendingBeacons(db, new Date(clock().getTime() - options.keepMs));
    return { applied: landed.length, expired };
  });
}
