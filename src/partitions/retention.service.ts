import type { Db, Queryable } from '../db/db';
import { MIGRATION_LOCK } from '../db/migrate';
import { newId } from '../shared/ids';
import { retentionCutoff } from './day-range';
import { PARTITIONED_TABLES, type PartitionedTable, type PartitionedTableName } from './partition-tables';
import { deleteKeyRange, dropPartition, listPartitions } from './partitions.repo';
import { KEEP_TOTALS } from './retained-totals.repo';

/** Whole days kept before today (UTC) per table; a table not named is kept whole. */
export type RetentionPolicy = Partial<Record<PartitionedTableName, number>>;

export interface TableRetention {
  table: PartitionedTableName;
  /** Keys below it are past retention: the ULID prefix of the first day kept. */
  cutoff: string;
  dropped: string[];
  /** Rows deleted from partitions that straddle the cutoff (the legacy and default partitions). */
  deleted: number;
}

/**
 * One retention pass: for each table with a retention, the days before the cutoff go. A day
 * partition wholly before it is dropped; the legacy and default partitions lose their rows
 * before it. What the reports need of those rows is added to retained_totals first, and the
 * mirror is told to delete the same range of ids, in the same transaction, one per table.
 */
export async function runRetention({ db, now, policy }: { db: Db; now: Date; policy: RetentionPolicy }): Promise<TableRetention[]> {
  const results: TableRetention[] = [];
  for (const table of PARTITIONED_TABLES) {
    const days = policy[table.table];
    if (days === undefined) continue;
    const cutoff = retentionCutoff(now, days);
    results.push(await db.transaction((tx) => retainTable(tx, table, cutoff)));
  }
  return results;
}

async function retainTable(tx: Queryable, { table, key, mirrored }: PartitionedTable, cutoff: string): Promise<TableRetention> {
  // Partitions are made and dropped one transaction at a time across the nodes (partitions.service.ts).
  await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
  const result: TableRetention = { table, cutoff, dropped: [], deleted: 0 };
  const keep = KEEP_TOTALS[table];
  for (const partition of await listPartitions(tx, table)) {
    const lower = partition.lower ?? '';
    if (!partition.isDefault && partition.upper !== null && partition.upper <= cutoff) {
      await keep?.(tx, partition.name, lower, partition.upper);
      await dropPartition(tx, partition.name);
      result.dropped.push(partition.name);
    } else if (partition.isDefault || lower < cutoff) {
      await keep?.(tx, partition.name, lower, cutoff);
      result.deleted += await deleteKeyRange(tx, { partition: partition.name, key, lower, upper: cutoff });
    }
  }
  if (mirrored && (result.dropped.length > 0 || result.deleted > 0)) {
    await tx.query(`INSERT INTO mirror_deletions (id, table_name, id_from, id_to) VALUES ($1, $2, '', $3)`, [newId(), table, cutoff]);
  }
  return result;
}
