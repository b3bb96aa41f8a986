import { join } from 'node:path';
import type { Db } from '../db/db';
import type { ClickRecord } from './click.model';
import { openJournal, type Journal, type JournalOptions } from './journal';
import { CLICK_COLUMNS, completeClick, IMPRESSION_COLUMNS, type ImpressionRecord, type JournaledClick, type JournalEntry } from './tracking.model';

/**
 * The durable path from an answered redirect to Postgres. The handler appends the click to the
 * journal (synchronously, before answering) and returns; a batcher inserts journaled records in
 * multi-row statements, on size and on a short timer, enriching each click right before it is
 * written. Inserts are idempotent on the record id, so replaying a journal after a crash, or
 * retrying a batch whose outcome is unknown, never duplicates a row.
 *
 * The batcher shares the event loop (and the machine) with the redirects, so it gives way to
 * them: its work is cut into slices of a few milliseconds, and while clicks keep arriving it
 * takes only a share of the time, a share that grows with the backlog. A burst is absorbed by
 * the journal on disk and written out as traffic allows; flush() and stop() do not wait.
 */
export interface ClickPipeline {
  /** Journals a click; returns once it is in the journal file. Throws when it cannot be journaled. */
  recordClick(click: JournaledClick): void;
  recordImpression(impression: ImpressionRecord): void;
  /**
   * Writes everything journaled before the call to Postgres at full speed and resolves once it
   * is committed, e.g. for a conversion that arrives milliseconds after its click was answered.
   * Rejects when the database refuses the write (the records stay journaled and are retried).
   * Its cost grows with the backlog: after a long burst it may take seconds.
   */
  flush(): Promise<void>;
  /** Records journaled and not yet in Postgres. */
  pending(): number;
  /** Replays what an earlier run left in the journal, then starts the timer. */
  start(): Promise<void>;
  /**
   * Writes everything to Postgres, as long as the database accepts writes; gives up after
   * `stopTimeoutMs` without progress (the journal keeps the rest for the next start).
   */
  stop(): Promise<void>;
}

export interface ClickPipelineOptions {
  /** Starts a write at once when this many records are waiting. */
  batchSize?: number;
  /** Writes whatever is waiting this often. */
  intervalMs?: number;
  /** How long stop() keeps retrying a database that accepts nothing. */
  stopTimeoutMs?: number;
  journal?: JournalOptions;
}

export type Enrich = (click: ClickRecord) => ClickRecord;

/** Rows per statement; statement sizes are powers of two up to this, so each table has at most 8 texts to prepare. */
const MAX_ROWS = 128;
/** Records per batch: several statements, run side by side. */
const BATCH_ROWS = MAX_ROWS * 4;
/** Clicks enriched between two yields to the event loop (a slice stays around a millisecond). */
const ENRICH_SLICE = 32;
/**
 * While clicks arrive, the batcher's share of wall time, growing to 1 as the backlog reaches
 * FULL_SPEED_BACKLOG. The cap keeps a shutdown flush short (main.ts allows 25 s for it).
 */
const BASE_SHARE = 0.25;
const FULL_SPEED_BACKLOG = 20_000;
/** No append for this long means traffic is quiet: the batcher then runs at full speed. */
const QUIET_AFTER_MS = 200;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

export function createClickPipeline(
  deps: { db: Db; dataDir: string; enrich: Enrich },
  options: ClickPipelineOptions = {},
): ClickPipeline {
  const batchSize = options.batchSize ?? MAX_ROWS;
  const intervalMs = options.intervalMs ?? 100;
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  const journal: Journal<JournalEntry> = openJournal(join(deps.dataDir, 'journal'), options.journal);
  const waiters: { target: number; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let running: Promise<void> | null = null;
  let retryDelay = 0;
  let retryAt = 0;
  let lastError: unknown;
  let lastAppendAt = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let stopping = false;
  let stopped = false;
  let wake: (() => void) | undefined;

  const append = (entry: JournalEntry) => {
    if (stopped) throw new Error('click pipeline is stopped');
    journal.append(entry);
    lastAppendAt = performance.now();
    if (journal.pending() >= batchSize && Date.now() >= retryAt) void drain();
  };

  const settleWaiters = (error?: unknown) => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const waiter = waiters[i]!;
      if (error !== undefined) waiter.reject(error);
      else if (journal.committed() >= waiter.target) waiter.resolve();
      else continue;
      waiters.splice(i, 1);
    }
  };

  /** After a batch that took `spentMs`, rests so the batcher keeps to its share while traffic flows. */
  const giveWay = async (spentMs: number) => {
    if (stopping || waiters.length > 0 || performance.now() - lastAppendAt > QUIET_AFTER_MS) return;
    const share = Math.min(1, BASE_SHARE + ((1 - BASE_SHARE) * journal.pending()) / FULL_SPEED_BACKLOG);
    if (share >= 1) return;
    await new Promise<void>((resolve) => {
      const rest = setTimeout(resolve, spentMs * (1 / share - 1));
      wake = () => {
        clearTimeout(rest);
        resolve();
      };
    });
    wake = undefined;
  };

  /** One writer at a time: batches are committed in journal order. */
  const drain = (): Promise<void> => {
    running ??= (async () => {
      try {
        for (let batch = journal.peek(BATCH_ROWS); batch; batch = journal.peek(BATCH_ROWS)) {
          const started = performance.now();
          await writeBatch(deps, batch.records);
          batch.commit();
          retryDelay = 0;
          retryAt = 0;
          lastError = undefined;
          settleWaiters();
          await giveWay(performance.now() - started);
        }
      } catch (error) {
        lastError = error;
        retryDelay = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, retryDelay * 2));
        retryAt = Date.now() + retryDelay;
        console.error(`click pipeline: write failed, ${journal.pending()} records kept in the journal, retrying in ${retryDelay} ms:`, errorText(error));
        settleWaiters(error);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const flush = (): Promise<void> => {
    const target = journal.appended();
    if (journal.committed() >= target) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => waiters.push({ target, resolve, reject }));
    wake?.();
    void drain();
    return done;
  };

  const tick = () => {
    if (journal.pending() > 0 && Date.now() >= retryAt) void drain();
  };

  return {
    recordClick: (click) => append({ k: 'c', r: click }),
    recordImpression: (impression) => append({ k: 'i', r: impression }),
    flush,
    pending: () => journal.pending(),
    async start() {
      const replaying = journal.pending();
      if (replaying > 0) {
        await drain();
        console.log(
          journal.pending() === 0
            ? `click pipeline: replayed ${replaying} journaled records`
            : `click pipeline: ${journal.pending()} journaled records wait for the database`,
        );
      }
      timer = setInterval(tick, intervalMs);
      timer.unref?.();
    },
    async stop() {
      if (stopped) return;
      stopping = true;
      stopped = true;
      clearInterval(timer);
      wake?.();
      let lastProgress = Date.now();
      for (let delay = RETRY_MIN_MS; ; ) {
        if (running) await running;
        const before = journal.pending();
        await drain();
        if (journal.pending() === 0 || isClosed(lastError)) break;
        if (journal.pending() < before) {
          lastProgress = Date.now();
          delay = RETRY_MIN_MS;
          continue;
        }
        if (Date.now() + delay - lastProgress > stopTimeoutMs) break;
        await Bun.sleep(delay);
        delay = Math.min(RETRY_MAX_MS, delay * 2);
      }
      if (journal.pending() > 0) console.error(`click pipeline: ${journal.pending()} records stay in the journal for the next start`);
      settleWaiters(new Error('click pipeline stopped'));
      await journal.close();
    },
  };
}

/**
 * Enriches and inserts one batch. Work on the event loop is cut into slices (a few clicks, or
 * building one statement) with a yield between them, so a redirect never waits long behind it.
 */
async function writeBatch(deps: { db: Db; enrich: Enrich }, entries: JournalEntry[]): Promise<void> {
  const clicks: unknown[][] = [];
  const impressions: unknown[][] = [];
  let enrichedSinceYield = 0;
  for (const entry of entries) {
    if (entry.k === 'c') {
      if (++enrichedSinceYield > ENRICH_SLICE) {
        enrichedSinceYield = 1;
        await yieldToRequests();
      }
      const click = enriched(deps.enrich, completeClick(entry.r));
      clicks.push(CLICK_COLUMNS.map((column) => click[column]));
    } else {
      impressions.push(IMPRESSION_COLUMNS.map((column) => entry.r[column]));
    }
  }
  const statements: Promise<number>[] = [];
  for (const [table, columns, rows] of [
    ['clicks', CLICK_COLUMNS, clicks],
    ['impressions', IMPRESSION_COLUMNS, impressions],
  ] as const) {
    for (let offset = 0; offset < rows.length; ) {
      let size = MAX_ROWS;
      while (size > rows.length - offset) size >>= 1;
      if (statements.length > 0) await yieldToRequests();
      const statement = deps.db.bulkInsert(table, columns, rows.slice(offset, offset + size), 'ON CONFLICT (id) DO NOTHING');
      statement.catch(() => {}); // observed by Promise.all below; a failure during a yield is not unhandled
      statements.push(statement);
      offset += size;
    }
  }
  // Statements run side by side on the pool: the database's latency is paid once per batch.
  await Promise.all(statements);
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A click that enrichment cannot handle is still stored as captured: losing it would be worse. */
function enriched(enrich: Enrich, click: ClickRecord): ClickRecord {
  try {
    return enrich(click);
  } catch (error) {
    console.error(`click pipeline: enrichment failed for click ${click.id}:`, errorText(error));
    return click;
  }
}

/** The database handle was closed by its owner: no retry can succeed, the journal keeps the records. */
function isClosed(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'CONNECTION_ENDED' || code === 'CONNECTION_DESTROYED' || message === 'PGlite is closed';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
