import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { assertIdentifier, type Queryable } from '../../db/db';
import { errorMessage } from '../../shared/error-message';
import { readRows } from './mirror-read';
import { createCursorTable, CURSOR_SEQ, CURSOR_TABLE, CURSOR_TXID, describeTable, syncDuckTable, type MirrorTable } from './mirror-schema';
import { duckSettings, type MirrorSettings } from './mirror-settings';
import { MIRRORED_TABLES } from './mirror-tables';

/**
 * The DuckDB analytics mirror: a columnar copy of the registered Postgres tables, never a
 * source of truth. See docs/analytics-mirror.md for why the cursor never skips a row.
 */
export interface Mirror {
  /** Copies on an interval from now on (the first round runs at once); a no-op when intervalMs is 0. */
  start(): void;
  /**
   * Copies every row whose transaction finished before the oldest one still running, and
   * resolves to the number of rows copied. Never call it inside a Postgres transaction: on
   * PGlite (one connection) it would wait for that transaction forever.
   */
  catchUp(): Promise<number>;
  /** One read-only SELECT on the mirror; $1 ... parameters; BIGINT and DECIMAL come back as number. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Stops the interval (an interval round under way ends after its current batches), copies what
   * is left (for at most 5 s, or `budgetMs` when shorter; the rest at the next start), closes DuckDB.
   */
  stop(options?: MirrorStopOptions): Promise<void>;
}

export interface MirrorStopOptions {
  /** What is left of the node's stop deadline for the final catch-up. */
  budgetMs?: number;
}

export interface MirrorOptions extends MirrorSettings {
  db: Queryable;
  /** The DuckDB file, or ':memory:'. */
  path: string;
  tables?: readonly string[];
  /** Milliseconds between rounds; 0 copies only on catchUp(). */
  intervalMs?: number;
  batchSize?: number;
  log?: (message: string, error?: unknown) => void;
  /**
   * True while the node's ingest has a backlog (a burst of clicks): interval rounds wait for it
   * to clear, for at most MAX_DEFERRAL_MS, so copying never competes with a burst. catchUp() ignores it.
   */
  busy?: () => boolean;
  /** The longest interval rounds wait for `busy` to clear; default 30 s. */
  maxDeferralMs?: number;
}

const MAX_DEFERRAL_MS = 30_000;
/** How long stop() may spend on its final catch-up. */
const STOP_BUDGET_MS = 5_000;

interface Cursor {
  txid: string;
  seq: string;
}

const START: Cursor = { txid: '0', seq: '0' };

export async function createMirror(options: MirrorOptions): Promise<Mirror> {
  const { db, path } = options;
  const names = (options.tables ?? MIRRORED_TABLES).map(assertIdentifier);
  const intervalMs = options.intervalMs ?? 1000;
  const batchSize = options.batchSize ?? 5000;
  // One line per event: a driver's stack adds nothing to "Postgres is unreachable".
  const log = options.log ?? ((message: string, error?: unknown) => console.error(error === undefined ? message : `${message}: ${errorMessage(error)}`));

  const instance = await DuckDBInstance.create(path, duckSettings(options));
  const writer = await instance.connect();
  await createCursorTable(writer);

  // Described once per process, on the first round that reaches Postgres: a column a migration
  // added since the last run is added to DuckDB here.
  let tables: MirrorTable[] | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let stopped = false;
  let lastFailure: string | undefined;
  const reads = new Set<Promise<unknown>>();

  async function describeAll(): Promise<MirrorTable[]> {
    if (tables) return tables;
    const described: MirrorTable[] = [];
    for (const name of names) {
      const table = await describeTable(db, name);
      await syncDuckTable(writer, table);
      described.push(table);
    }
    tables = described;
    return described;
  }

  /** `more()` is asked between batches: false ends the round early (each table still gets one batch). */
  async function round(more: () => boolean = () => true): Promise<number> {
    let copied = 0;
    let firstError: unknown;
    // One failing table (a cast it cannot make, say) must not stop the others.
    for (const table of await describeAll()) {
      try {
        copied += await copyTable(writer, db, table, batchSize, more);
      } catch (error) {
        firstError ??= error;
      }
    }
    if (firstError !== undefined) throw firstError;
    return copied;
  }

  // Rounds never overlap: a catchUp() that arrives mid-round runs a full round after it, so it
  // sees every row that committed before the call.
  function enqueue(more?: () => boolean): Promise<number> {
    const run = chain.then(() => round(more));
    chain = run.catch(() => {});
    return run;
  }

  let deferredSince: number | undefined;

  async function tick() {
    timer = undefined;
    const now = Date.now();
    const busy = options.busy ?? (() => false);
    const maxDeferralMs = options.maxDeferralMs ?? MAX_DEFERRAL_MS;
    if (busy() && now - (deferredSince ??= now) < maxDeferralMs) {
      if (!stopped) {
        timer = setTimeout(tick, intervalMs);
        timer.unref?.();
      }
      return;
    }
    deferredSince = undefined;
    try {
      // An interval round gives way as soon as a burst starts; catchUp() and a round that waited
      // the longest deferral run to the end, so the mirror still catches up under endless load.
      // Every round ends at a stop, whose own last round keeps to the stop's budget.
      await enqueue(busy() ? () => !stopped : () => !stopped && !busy());
      if (lastFailure !== undefined) log('analytics mirror: recovered');
      lastFailure = undefined;
    } catch (error) {
      // Logged once per distinct failure, not every round, while Postgres is away.
      const message = errorMessage(error);
      if (message !== lastFailure) log('analytics mirror: round failed; retrying', error);
      lastFailure = message;
    }
    if (!stopped) {
      timer = setTimeout(tick, intervalMs);
      // The interval alone never keeps the process alive.
      timer.unref?.();
    }
  }

  return {
    start() {
      if (started || stopped || intervalMs <= 0) return;
      started = true;
      void tick();
    },
    catchUp() {
      if (stopped) return Promise.reject(new Error('analytics mirror is stopped'));
      return enqueue();
    },
    async query<T>(sql: string, params: readonly unknown[] = []) {
      if (stopped) throw new Error('analytics mirror is stopped');
      const connection = await instance.connect();
      const read = readRows<T>(connection, sql, params).finally(() => connection.closeSync());
      const tracked: Promise<void> = read.then(
        () => void reads.delete(tracked),
        () => void reads.delete(tracked),
      );
      reads.add(tracked);
      return read;
    },
    async stop({ budgetMs }: MirrorStopOptions = {}) {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await chain;
      try {
        // Bounded: whatever is left is copied at the next start, from the cursor kept in DuckDB.
        const deadline = Date.now() + Math.max(0, Math.min(STOP_BUDGET_MS, budgetMs ?? STOP_BUDGET_MS));
        await round(() => Date.now() < deadline);
      } catch (error) {
        log('analytics mirror: final catch-up failed', error);
      }
      await Promise.all(reads);
      writer.closeSync();
      instance.closeSync();
    },
  };
}

async function readCursor(duck: DuckDBConnection, table: string): Promise<Cursor> {
  const result = await duck.runAndReadAll(
    `SELECT txid::VARCHAR AS txid, seq::VARCHAR AS seq FROM ${CURSOR_TABLE} WHERE table_name = $1`,
    [table],
  );
  const row = result.getRowObjectsJS()[0];
  return row ? { txid: String(row.txid), seq: String(row.seq) } : START;
}

/** Rows as the batch query returns them: every column as text, with the cursor columns. */
export type Batch = Record<string, string | null>[];

/**
 * Copies a table batch by batch until Postgres has nothing more past the cursor. The next
 * batch is read from Postgres while DuckDB writes the current one; if that write fails, the
 * read-ahead is dropped and the next round starts again from the cursor DuckDB committed.
 */
async function copyTable(duck: DuckDBConnection, db: Queryable, table: MirrorTable, batchSize: number, more: () => boolean): Promise<number> {
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

/** Rows appended between two turns of the event loop (see applyBatch). */
const YIELD_EVERY_ROWS = 250;

/**
 * Stages the batch through the appender, then moves it into the table and advances the
 * cursor in ONE DuckDB transaction: after a crash either both happened or neither did,
 * so a restart neither repeats nor skips a row.
 */
export async function applyBatch(duck: DuckDBConnection, table: MirrorTable, rows: Batch): Promise<void> {
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
  const cursor = cursorOf(rows);
  await duck.run('BEGIN TRANSACTION');
  try {
    await duck.run(table.upsertFromStage);
    await duck.run(`INSERT OR REPLACE INTO ${CURSOR_TABLE} VALUES ($1, CAST($2 AS UBIGINT), CAST($3 AS BIGINT))`, [
      table.name,
      cursor.txid,
      cursor.seq,
    ]);
    await duck.run('COMMIT');
  } catch (error) {
    await duck.run('ROLLBACK').catch(() => {});
    throw error;
  }
}
