import type { DuckDBConnection } from '@duckdb/node-api';
import { assertIdentifier } from '../../db/db';

/**
 * The Postgres log of deleted rows (sql/0117_privacy_erasure.sql), mirrored like any table: the
 * copy brings each node the rows deleted since its cursor, and applyDeletions() deletes them
 * here, then drops its copy of the log (docs/analytics-mirror.md, "Deletes").
 */
export const DELETIONS_TABLE = 'mirror_deletions';

/**
 * Deletes from the mirrored `tables` every row the copied log names (by the SHA-256 of its id),
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
      const result = await duck.run(
        `DELETE FROM "${assertIdentifier(table)}" WHERE sha256(CAST(id AS VARCHAR)) IN (SELECT row_hash FROM ${DELETIONS_TABLE} WHERE table_name = $1)`,
        [table],
      );
      deleted += Number(result.rowsChanged);
    }
    await duck.run(`DELETE FROM ${DELETIONS_TABLE}`);
    await duck.run('COMMIT');
  } catch (error) {
    await duck.run('ROLLBACK').catch(() => {});
    throw error;
  }
  return deleted;
}
