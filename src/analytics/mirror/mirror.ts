import { DuckDBInstance } from '@duckdb/node-api';
import { assertIdentifier, type Queryable } from '../../db/db';
import { errorMessage } from '../../shared/error-message';
import { createReads } from './mirror-read';
import { createRounds } from './mirror-rounds';
import { createCursorTable } from './mirror-schema';
import { duckSettings, type MirrorSettings } from './mirror-settings';
import { MIRRORED_TABLES } from './mirror-tables';
import { createRoundTimer } from './mirror-timer';

export { applyBatch, type Batch } from './mirror-copy';

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

/** How long stop() may spend on its final catch-up. */
const STOP_BUDGET_MS = 5_000;

// One line per event: a driver's stack adds nothing to "Postgres is unreachable".
const logLine = (message: string, error?: unknown) => console.error(error === undefined ? message : `${message}: ${errorMessage(error)}`);

/**
 * The mirror composed of its parts: the rounds that copy (mirror-rounds.ts, one table at a time
 * in mirror-copy.ts, from the cursor in mirror-cursor.ts), the interval that runs them
 * (mirror-timer.ts) and the reads (mirror-read.ts), all on one DuckDB instance.
 */
export async function createMirror(options: MirrorOptions): Promise<Mirror> {
  const names = (options.tables ?? MIRRORED_TABLES).map(assertIdentifier);
  const log = options.log ?? logLine;

  const instance = await DuckDBInstance.create(options.path, duckSettings(options));
  const writer = await instance.connect();
  await createCursorTable(writer);

  const rounds = createRounds({ db: options.db, writer, names, batchSize: options.batchSize ?? 5000 });
  const timer = createRoundTimer({
    intervalMs: options.intervalMs ?? 1000,
    busy: options.busy,
    maxDeferralMs: options.maxDeferralMs,
    log,
    enqueue: rounds.enqueue,
  });
  const reads = createReads(instance);
  let stopped = false;

  return {
    start() {
      timer.start();
    },
    catchUp() {
      if (stopped) return Promise.reject(new Error('analytics mirror is stopped'));
      return rounds.enqueue();
    },
    async query<T>(sql: string, params: readonly unknown[] = []) {
      if (stopped) throw new Error('analytics mirror is stopped');
      return reads.query<T>(sql, params);
    },
    async stop({ budgetMs }: MirrorStopOptions = {}) {
      if (stopped) return;
      stopped = true;
      timer.halt();
      await rounds.idle();
      try {
        // Bounded: whatever is left is copied at the next start, from the cursor kept in DuckDB.
        const deadline = Date.now() + Math.max(0, Math.min(STOP_BUDGET_MS, budgetMs ?? STOP_BUDGET_MS));
        await rounds.run(() => Date.now() < deadline);
      } catch (error) {
        log('analytics mirror: final catch-up failed', error);
      }
      await reads.drain();
      writer.closeSync();
      instance.closeSync();
    },
  };
}
