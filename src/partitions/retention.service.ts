import type { Db, Queryable } from '../db/db';
import { MIGRATION_LOCK } from '../db/migrate';
import { newId } from '../shared/ids';
import { retentionCutoff } from './day-range';
import { KEEP_TOTALS } from './keep-totals';
import type { KeptRange } from './kept-range';
import { PARTITIONED_TABLES, type PartitionedTable, type PartitionedTableName } from './partition-tables';
import { batchEnd, deleteKeyRange, dropPartition, listPartitions, type PartitionRow } from './partitions.repo';

/** Whole days kept before today (UTC) per table; a table not named is kept whole. */
export type RetentionPolicy = Partial<Record<PartitionedTableName, number>>;

/**
 * Rows deleted per transaction from a partition that straddles the cutoff (the legacy and default
 * partitions): a small transaction holds its locks briefly, and a pass over a large legacy
 * partition never writes one huge transaction.
 */
export const RETENTION_BATCH_ROWS = 10_000;

export interface TableRetention {
  table: PartitionedTableName;
  /** Keys below it are past retention: the ULID prefix of the first day kept. */
  cutoff: string;
  dropped: string[];
  /** Rows deleted from partitions that straddle the cutoff (the legacy and default partitions). */
  deleted: number;
  /** The transactions those rows were deleted in. */
  batches: number;
}

export interface RetentionOptions {
  db: Db;
  now: Date;
  policy: RetentionPolicy;
  batchRows?: number;
}

/**
 * One retention pass: for each table with a retention, the rows before the cutoff go. A day
 * partition wholly before it is dropped; the legacy and default partitions lose their rows before
 * it, a batch of keys at a time. Each partition dropped and each batch is one transaction that
 * adds what the reports need of exactly its rows to the kept totals (keep-totals.ts), removes
 * them, and tells the mirrors to delete the same range of ids. A pass that stops half-way (a
 * crash, a lost connection) leaves whole steps behind it; the next pass finds the rest still
 * below the cutoff and finishes, counting each row once.
 */
export async function runRetention({ db, now, policy, batchRows = RETENTION_BATCH_ROWS }: RetentionOptions): Promise<TableRetention[]> {
  if (!Number.isSafeInteger(batchRows) || batchRows < 1) throw new RangeError(`batchRows must be a whole number of rows: ${batchRows}`);
  const results: TableRetention[] = [];
  for (const table of PARTITIONED_TABLES) {
    const days = policy[table.table];
    if (days === undefined) continue;
    results.push(await retainTable(db, table, retentionCutoff(now, days), batchRows));
  }
  return results;
}

async function retainTable(db: Db, table: PartitionedTable, cutoff: string, batchRows: number): Promise<TableRetention> {
  const result: TableRetention = { table: table.table, cutoff, dropped: [], deleted: 0, batches: 0 };
  for (;;) {
    const dropped = await db.transaction((tx) => dropNextPast(tx, table, cutoff));
    if (dropped === null) break;
    result.dropped.push(dropped);
  }
  const straddling = (await listPartitions(db, table.table)).filter((partition) => partition.isDefault || (partition.lower ?? '') < cutoff);
  for (const partition of straddling) {
    // Each batch starts where the last one ended: a scan from the partition's start would walk
    // the index entries of every row deleted so far, until a vacuum clears them.
    let lower = partition.lower ?? '';
    while (lower < cutoff) {
      const batch = await db.transaction((tx) => deleteBatch(tx, table, { partition: partition.name, lower, upper: cutoff }, batchRows));
      if (batch.deleted > 0) {
        result.deleted += batch.deleted;
        result.batches += 1;
      }
      lower = batch.end;
    }
  }
  return result;
}

/** Partitions are made and dropped one transaction at a time across the nodes (partitions.service.ts). */
async function lockPartitions(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
}

/** Drops the first partition wholly before the cutoff, its totals kept first; null when none is left. */
async function dropNextPast(tx: Queryable, { table, mirrored }: PartitionedTable, cutoff: string): Promise<string | null> {
  await lockPartitions(tx);
  const past = (await listPartitions(tx, table)).find((partition) => whollyBefore(partition, cutoff));
  if (!past) return null;
  const range = { partition: past.name, lower: past.lower ?? '', upper: past.upper! };
  await keepTotals(tx, table, range);
  await dropPartition(tx, past.name);
  if (mirrored) await logMirrorDeletion(tx, table, range);
  return past.name;
}

function whollyBefore(partition: PartitionRow, cutoff: string): boolean {
  return !partition.isDefault && partition.upper !== null && partition.upper <= cutoff;
}

/**
 * Deletes up to `rows` rows of the range, the first ones by key, with their totals kept and the
 * mirrors told, in the caller's transaction. Resolves to the rows deleted and the key the next
 * batch starts at (the range's upper bound once none is left).
 */
async function deleteBatch(tx: Queryable, { table, key, mirrored }: PartitionedTable, range: KeptRange, rows: number): Promise<{ deleted: number; end: string }> {
  await lockPartitions(tx);
  const end = await batchEnd(tx, { ...range, key, rows });
  const batch = { ...range, upper: end };
  await keepTotals(tx, table, batch);
  const deleted = await deleteKeyRange(tx, { ...batch, key });
  if (mirrored && deleted > 0) await logMirrorDeletion(tx, table, batch);
  return { deleted, end };
}

async function keepTotals(tx: Queryable, table: string, range: KeptRange): Promise<void> {
  for (const keep of KEEP_TOTALS[table] ?? []) await keep(tx, range);
}

/**
 * Every node's mirror deletes the same ids on its next round (docs/analytics-mirror.md,
 * "Deletes"). The range names this partition's rows only: partitions' key ranges never overlap,
 * and the partitions wholly before the cutoff are dropped before any batch is deleted.
 */
async function logMirrorDeletion(tx: Queryable, table: string, range: KeptRange): Promise<void> {
  await tx.query(`INSERT INTO mirror_deletions (id, table_name, id_from, id_to) VALUES ($1, $2, $3, $4)`, [newId(), table, range.lower, range.upper]);
}
