import type { DuckDBConnection } from '@duckdb/node-api';
import { assertIdentifier } from '../../db/db';

/**
 * The Postgres log of deleted rows (sql/0117_privacy_erasure.sql), mirrored like any table: the
 * copy brings each node the rows deleted since its cursor, and applyDeletions() deletes them
 * here, then drops its copy of the log (docs/analytics-mirror.md, "Deletes").
 */
export const DELETIONS_TABLE = 'mirror_deletions';

/**
 * Deletes from the mirrored `tables` every row the copied log names (by the SHA-256 of its id,
 * or as a range of ids),
 * and empties the copy, in one DuckDB transaction. Resolves to the rows deleted.
 */
export async function applyDeletions(duck: DuckDBConnection, tables: readonly string[]): Promise<number> {
  const named = await duck.runAndReadAll(`SELECT DISTINCT table_name FROM ${DELETIONS_TABLE}`);
  const targets = named
    .getRowObjectsJS()
    .map((row) => String(row.table_name))
    .filter((name) => tables.includes(name));
  if (named.currentRowCount === 0) return 0;
  let deleted = 0;
  await duck.run('BEGIN TRANSACTION');
  try {
    for (const table of targets) {
      const quoted = `"${assertIdentifier(table)}"`;
      const byHash = await duck.run(
        `DELETE FROM ${quoted} WHERE sha256(CAST(id AS VARCHAR)) IN (SELECT row_hash FROM ${DELETIONS_TABLE} WHERE table_name = $1 AND row_hash IS NOT NULL)`,
        [table],
      );
      // Retention's days: ULID keys in [id_from, id_to), compared byte by byte as Postgres's bounds are.
      const byRange = await duck.run(
        `DELETE FROM ${quoted} t WHERE EXISTS (SELECT 1 FROM ${DELETIONS_TABLE} d
           WHERE d.table_name = $1 AND d.id_from IS NOT NULL AND CAST(t.id AS VARCHAR) >= d.id_from AND CAST(t.id AS VARCHAR) < d.id_to)`,
        [table],
      );
      deleted += Number(byHash.rowsChanged) + Number(byRange.rowsChanged);
    }
    await duck.run(`DELETE FROM ${DELETIONS_TABLE}`);
    await duck.run('COMMIT');
  } catch (error) {
    await duck.run('ROLLBACK').catch(() => {});
    throw error;
  }
  return deleted;
}
