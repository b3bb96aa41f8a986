import { assertIdentifier, type Queryable } from '../db/db';

/** One partition of a partitioned table; a bound is null when open (MINVALUE, MAXVALUE, the default). */
export interface PartitionRow {
  name: string;
  isDefault: boolean;
  lower: string | null;
  upper: string | null;
}

const BOUND = /FROM \((?:MINVALUE|'([^']*)')\) TO \((?:MAXVALUE|'([^']*)')\)/;

export async function listPartitions(q: Queryable, table: string): Promise<PartitionRow[]> {
  const rows = await q.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass
      ORDER BY c.relname`,
    [assertIdentifier(table)],
  );
  return rows.map(({ name, bound }) => {
    if (bound === 'DEFAULT') return { name, isDefault: true, lower: null, upper: null };
    const match = BOUND.exec(bound);
    return { name, isDefault: false, lower: match?.[1] ?? null, upper: match?.[2] ?? null };
  });
}

/**
 * Makes `name` the partition of `table` for keys in [lower, upper). It is built as a table of its
 * own and attached (a lighter lock than CREATE ... PARTITION OF), after taking over the rows the
 * default partition holds in that range, which would otherwise make the attach fail.
 */
export async function createRangePartition(
  tx: Queryable,
  p: { table: string; key: string; name: string; lower: string; upper: string },
): Promise<number> {
  const [table, key, name] = [assertIdentifier(p.table), assertIdentifier(p.key), assertIdentifier(p.name)];
  const fallback = `${table}_default`;
  await tx.query(`CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)`);
  const moved = await tx.query<{ n: number }>(
    `WITH moved AS (DELETE FROM ${fallback} WHERE ${key} >= $1 AND ${key} < $2 RETURNING *),
          copied AS (INSERT INTO ${name} SELECT * FROM moved RETURNING 1)
     SELECT count(*)::int AS n FROM copied`,
    [p.lower, p.upper],
  );
  await tx.query(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM ('${literal(p.lower)}') TO ('${literal(p.upper)}')`);
  return moved[0]?.n ?? 0;
}

export async function dropPartition(tx: Queryable, name: string): Promise<void> {
  await tx.query(`DROP TABLE ${assertIdentifier(name)}`);
}

/** Deletes a partition's rows with keys in [lower, upper). */
export async function deleteKeyRange(tx: Queryable, p: { partition: string; key: string; lower: string; upper: string }): Promise<number> {
  const key = assertIdentifier(p.key);
  const rows = await tx.query<{ n: number }>(
    `WITH gone AS (DELETE FROM ${assertIdentifier(p.partition)} WHERE ${key} >= $1 AND ${key} < $2 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    [p.lower, p.upper],
  );
  return rows[0]?.n ?? 0;
}

/**
 * The key that ends a batch of `rows` rows of `partition` from `lower` on, below `upper`: the
 * key of the row after them, or `upper` when fewer are left. Read on the key's index.
 */
export async function batchEnd(q: Queryable, p: { partition: string; key: string; lower: string; upper: string; rows: number }): Promise<string> {
  const key = assertIdentifier(p.key);
  const found = await q.query<{ next: string }>(
    `SELECT ${key} AS next FROM ${assertIdentifier(p.partition)} WHERE ${key} >= $1 AND ${key} < $2 ORDER BY ${key} OFFSET $3 LIMIT 1`,
    [p.lower, p.upper, p.rows],
  );
  return found[0]?.next ?? p.upper;
}

export async function countRows(q: Queryable, partition: string): Promise<number> {
  const rows = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${assertIdentifier(partition)}`);
  return rows[0]?.n ?? 0;
}

/** Partition bounds cannot be parameters; they are ULID prefixes made here, checked all the same. */
function literal(bound: string): string {
  if (!/^[0-9A-Z]{10}$/.test(bound)) throw new Error(`not a ULID time prefix: ${bound}`);
  return bound;
}
