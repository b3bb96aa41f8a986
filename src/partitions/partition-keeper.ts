import type { Db } from '../db/db';
import type { Clock } from '../shared/ids';
import { periodicPass, type PeriodicPass } from '../shared/periodic-pass';
import { ensureDayPartitions, type EnsuredPartition } from './partitions.service';
import { runRetention, type RetentionPolicy, type TableRetention } from './retention.service';

/** Any fixed number: one node at a time runs the retention pass. */
const RETENTION_LOCK = 727_046;
/** Hourly: the day partitions ahead never run out, and a retention pass follows midnight (UTC) within the hour. */
export const PARTITION_KEEPER_INTERVAL_MS = 3_600_000;

export interface KeeperRound {
  made: EnsuredPartition[];
  /** null: another node holds the retention pass, or no retention is set. */
  retention: TableRetention[] | null;
}

export interface PartitionKeeperDeps {
  db: Db;
  clock: Clock;
  retention: RetentionPolicy;
  daysAhead: number;
  log?: (line: string) => void;
}

/**
 * Keeps the day partitions (docs/data-lifecycle.md, "Day partitions", "Retention"): every round
 * makes the partitions ahead that are missing and, on the one node holding the retention lock,
 * drops the days past retention. Both are idempotent, so a round that finds nothing to do costs
 * a catalog read per table.
 */
export function createPartitionKeeper(deps: PartitionKeeperDeps, intervalMs = PARTITION_KEEPER_INTERVAL_MS): PeriodicPass<KeeperRound> {
  const log = deps.log ?? ((line: string) => console.log(line));
  return periodicPass('day partitions', intervalMs, async () => {
    const now = deps.clock();
    const made = await ensureDayPartitions({ db: deps.db, now }, deps.daysAhead);
    if (made.length > 0) log(`day partitions made: ${made.map((p) => p.name).join(', ')}`);
    const retention = Object.keys(deps.retention).length === 0 ? null : await retainOnOneNode(deps, now);
    for (const table of retention ?? []) {
      if (table.dropped.length > 0 || table.deleted > 0) {
        log(`retention: ${table.table} dropped ${table.dropped.length} partitions and ${table.deleted} rows (${table.batches} batches) before ${table.cutoff}`);
      }
    }
    return { made, retention };
  });
}

async function retainOnOneNode(deps: PartitionKeeperDeps, now: Date): Promise<TableRetention[] | null> {
  const lock = await deps.db.tryAdvisoryLock(RETENTION_LOCK);
  if (!lock) return null;
  try {
    return await runRetention({ db: deps.db, now, policy: deps.retention });
  } finally {
    await lock.release();
  }
}
