import type { Db } from '../db/db';
import { MIGRATION_LOCK } from '../db/migrate';
import { dayRange, utcDayStart } from './day-range';
import { PARTITIONED_TABLES } from './partition-tables';
import { createRangePartition, listPartitions, type PartitionRow } from './partitions.repo';

/** Days made ahead of today by default: a week of clock skew or downtime before the default partition fills. */
export const DEFAULT_DAYS_AHEAD = 7;

export interface EnsuredPartition {
  table: string;
  name: string;
  /** Rows taken over from the default partition. */
  moved: number;
}

/**
 * Makes each partitioned table's day partitions from today to `daysAhead` days ahead (UTC) that
 * no partition covers yet. Under the migration lock, so nodes booting together (and a migration
 * in progress) make each partition once.
 */
export async function ensureDayPartitions(
  { db, now }: { db: Db; now: Date },
  daysAhead = DEFAULT_DAYS_AHEAD,
): Promise<EnsuredPartition[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const made: EnsuredPartition[] = [];
    for (const { table, key } of PARTITIONED_TABLES) {
      const existing = await listPartitions(tx, table);
      for (let offset = 0; offset <= daysAhead; offset++) {
        const range = dayRange(utcDayStart(now, offset));
        if (existing.some((partition) => overlaps(partition, range.lower, range.upper))) continue;
        const name = `${table}_d${range.day}`;
        const moved = await createRangePartition(tx, { table, key, name, lower: range.lower, upper: range.upper });
        made.push({ table, name, moved });
      }
    }
    return made;
  });
}

function overlaps(partition: PartitionRow, lower: string, upper: string): boolean {
  if (partition.isDefault) return false;
  return (partition.lower === null || partition.lower < upper) && (partition.upper === null || partition.upper > lower);
}
