import type { DuckDBConnection } from '@duckdb/node-api';
import { CURSOR_TABLE } from './mirror-schema';

/**
 * Where a table's copy stands: the (_txid, _seq) of the last row DuckDB committed. Kept in DuckDB
 * itself, beside the rows it counts, so a restart resumes exactly where the last batch ended.
 */
export interface Cursor {
  txid: string;
  seq: string;
}

/** A table never copied (or reset by a column added with a DEFAULT) starts below every row. */
const START: Cursor = { txid: '0', seq: '0' };

export async function readCursor(duck: DuckDBConnection, table: string): Promise<Cursor> {
  const result = await duck.runAndReadAll(
    `SELECT txid::VARCHAR AS txid, seq::VARCHAR AS seq FROM ${CURSOR_TABLE} WHERE table_name = $1`,
    [table],
  );
  const row = result.getRowObjectsJS()[0];
  return row ? { txid: String(row.txid), seq: String(row.seq) } : START;
}

/** Run inside the transaction that writes the batch: the rows and the cursor move together or not at all. */
export async function saveCursor(duck: DuckDBConnection, table: string, cursor: Cursor): Promise<void> {
  await duck.run(`INSERT OR REPLACE INTO ${CURSOR_TABLE} VALUES ($1, CAST($2 AS UBIGINT), CAST($3 AS BIGINT))`, [
    table,
    cursor.txid,
    cursor.seq,
  ]);
}
