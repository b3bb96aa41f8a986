import type { DuckDBConnection } from '@duckdb/node-api';
import type { Queryable } from '../../db/db';
import { readCursor, saveCursor, type Cursor } from './mirror-cursor';
import { CURSOR_SEQ, CURSOR_TXID, type MirrorTable } from './mirror-schema';

/** Rows as the batch query returns them: every column as text, with the cursor columns. */
export type Batch = Record<string, string | null>[];

/**
 * Copies a table batch by batch until Postgres has nothing more past the cursor. The next
 * batch is read from Postgres while DuckDB writes the current one; if that write fails, the
 * read-ahead is dropped and the next round starts again from the cursor DuckDB committed.
 * `more()` is asked between batches: false ends the copy after the batch in hand.
 */
export async function copyTable(duck: DuckDBConnection, db: Queryable, table: MirrorTable, batchSize: number, more: () => boolean): Promise<number> {
  const fetch = (cursor: Cursor) => {
    const batch = db.query<Batch[number]>(table.selectBatch, [cursor.txid, cursor.seq, batchSize]);
    // Marked handled at once: a read-ahead that fails while DuckDB is busy is reported when awaited.
    batch.catch(() => {});
    return batch;
  };
  let pending: Promise<Batch> | undefined = fetch(await readCursor(duck, table.name));
  let copied = 0;
  while (pending) {
    const rows: Batch = await pending;
    if (rows.length === 0) break;
    pending = rows.length === batchSize && more() ? fetch(cursorOf(rows)) : undefined;
    await applyBatch(duck, table, rows);
    copied += rows.length;
  }
  return copied;
}

function cursorOf(rows: Batch): Cursor {
  const last = rows[rows.length - 1]!;
  return { txid: String(last[CURSOR_TXID]), seq: String(last[CURSOR_SEQ]) };
}

/**
 * Stages the batch through the appender, then moves it into the table and advances the
 * cursor in ONE DuckDB transaction: after a crash either both happened or neither did,
 * so a restart neither repeats nor skips a row.
 */
export async function applyBatch(duck: DuckDBConnection, table: MirrorTable, rows: Batch): Promise<void> {
  await stageBatch(duck, table, rows);
  const cursor = cursorOf(rows);
  await duck.run('BEGIN TRANSACTION');
  try {
    await duck.run(table.upsertFromStage);
    await saveCursor(duck, table.name, cursor);
    await duck.run('COMMIT');
  } catch (error) {
    await duck.run('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Rows appended between two turns of the event loop (see stageBatch). */
const YIELD_EVERY_ROWS = 250;

async function stageBatch(duck: DuckDBConnection, table: MirrorTable, rows: Batch): Promise<void> {
  // A new staging table per batch: DuckDB does not reclaim a temporary table's deleted rows, so
  // one emptied with DELETE would hold every row ever copied through it (a whole burst) in memory.
  await duck.run(table.createStage);
  const appender = await duck.createAppender(table.stageTable, 'main', 'temp');
  try {
    for (const [i, row] of rows.entries()) {
      // Appending is synchronous: give the event loop a turn every few hundred rows, so a large
      // batch never holds up the requests this node is answering.
      if (i > 0 && i % YIELD_EVERY_ROWS === 0) await new Promise((resolve) => setImmediate(resolve));
      for (const column of table.columns) {
        const value = row[column.name];
        if (value === null || value === undefined) appender.appendNull();
        else appender.appendVarchar(String(value));
      }
      appender.endRow();
    }
  } catch (error) {
    appender.clear();
    throw error;
  } finally {
    appender.closeSync();
  }
}
