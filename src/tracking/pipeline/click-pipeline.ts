import { join } from 'node:path';
import type { Db } from '../../db/db';
import { isHandleClosed } from '../../db/errors';
import { backoffDelay, type Backoff } from '../../shared/backoff';
import { errorMessage } from '../../shared/error-message';
import { fixedBacklogLimit, measuredBacklogLimit } from './backlog-limit';
import { createClickWriter, EMBEDDED_STATEMENT_ROWS, STATEMENT_ROWS, type ClickWriter, type Enrich } from './click-writer';
import { openJournal, type Journal, type JournalOptions } from './journal/journal';
import type { JournalBatch } from './journal/read-cursor';
import type { StagedAppends } from './journal/staging';
import type { ImpressionRecord, JournaledClick, JournalEntry } from '../tracking.model';
import { idleLoopMeter, threadLoopMeter, writeShare, type LoopMeter } from './write-share';

export type { Enrich } from './click-writer';

/**
 * The durable path from an answered redirect to Postgres: the click is journaled before the answer;
 * a batcher writes journaled records idempotently (a replay or retry never duplicates a row), giving
 * way to redirects while clicks arrive (write-share.ts; docs/tracking.md, "The click pipeline").
 */
export interface ClickPipeline extends StagedAppends {
  /**
   * Journals a click, with the query string of its redirect when there is one (its parameters
   * are captured when the click is written); returns once it is in the journal file, or, inside
   * `stageWhile`, once it is staged for the next `writeStaged` (answer-batch.ts). Throws when it
   * cannot be journaled.
   */
  recordClick(click: JournaledClick, query?: string): void;
  recordImpression(impression: ImpressionRecord): void;
  /**
   * Writes everything journaled before the call at full speed and resolves once it is committed
   * (a conversion naming a click just answered); after a long burst it may take seconds. Rejects
   * when the database refuses the write (the records stay journaled and are retried).
   */
  flush(): Promise<void>;
  /** Records journaled and not yet in Postgres. */
  pending(): number;
  /** Whether records reach the database: `retrying` after a failed batch, `stalled` while one batch takes too long. */
  writerState(): WriterState;
  /** The backlog at which the batcher stops giving way: CLICK_BACKLOG, or measured (backlog-limit.ts). */
  backlogLimit(): number;
  /** Replays what an earlier run left in the journal, then starts the timer. */
  start(): Promise<void>;
  /**
   * Writes everything to Postgres, as long as the database accepts writes; gives up after
   * `stopTimeoutMs` without progress (the journal keeps the rest for the next start).
   */
  stop(): Promise<void>;
}

export type WriterState = 'ok' | 'retrying' | 'stalled';

const SEVERITY: Record<WriterState, number> = { ok: 0, retrying: 1, stalled: 2 };
/** The state of several writers: the least healthy one's. */
export const worstWriterState = (states: WriterState[]): WriterState =>
  states.reduce<WriterState>((worst, state) => (SEVERITY[state] > SEVERITY[worst] ? state : worst), 'ok');

/** A batch in flight this long reads as stalled (the thread writer's watchdog ends it at STALLED_WRITE_MS). */
const STALLED_AFTER_MS = 30_000;

export interface ClickPipelineOptions {
  /** Starts a write at once when this many records are waiting. */
  batchSize?: number;
  /** Writes whatever is waiting this often. */
  intervalMs?: number;
  /** How long stop() keeps retrying a database that accepts nothing. */
  stopTimeoutMs?: number;
  /**
   * The backlog (journaled, not yet written) at which the batcher stops giving way to redirects.
   * Unset: what the writer is measured to write within FLUSH_BUDGET_MS (backlog-limit.ts),
   * DEFAULT_BACKLOG_LIMIT until it is measured.
   */
  backlogLimit?: number;
  journal?: JournalOptions;
  /** Told of each click once it is journaled: the realtime counters (src/analytics/realtime-counter.ts). */
  onClick?: (click: JournaledClick) => void;
  /**
   * How busy the event loop answering the redirects is. Default: this thread's CPU time, when
   * the writer runs elsewhere; never busy when it runs on this loop (its own work would count).
   */
  loopMeter?: LoopMeter;
}

/**
 * Where the pipeline's batches are written: in process, on `db`, enriched by `enrich` and
 * yielding to requests as it goes; or by `writer` (given the set-aside file's path), somewhere
 * else than on this event loop (click-writer.thread.ts), which enriches on its own.
 */
export type ClickPipelineDeps = { db: Db; dataDir: string } & (
  | { enrich: Enrich; writer?: undefined }
  | { writer: (setAsidePath: string) => ClickWriter; enrich?: undefined }
);

/** A batch handed to the writer and not yet committed from the journal. */
interface InFlight {
  batch: JournalBatch;
  written: Promise<void>;
  started: number;
  /** Started at full speed with no record arriving: its time measures the writer's rate. */
  quiet: boolean;
}

/**
 * Batches handed at once to a writer on a thread of its own, at full speed: it enriches the next
 * while the database writes the last. A writer on this event loop writes everything in turn.
 */
export const THREAD_BATCHES_IN_FLIGHT = 2;

/** Records per batch: several statements, run side by side. */
const BATCH_ROWS = STATEMENT_ROWS * 4;
/** A pipeline's journal lives here, under its data directory. */
export const journalDirOf = (dataDir: string) => join(dataDir, 'journal');
/** Where records the database refused are kept, one JSON line each, in the journal's directory. */
export const SET_ASIDE_FILE = 'refused.jsonl';
/** Clicks enriched between two yields to the event loop when the writer runs in process. */
const ENRICH_SLICE = 32;
/**
 * While giving way, the batcher looks at its share again this often, so a rest ends when
 * traffic stops or the backlog grows (a rest set at a small share would otherwise run on for
 * seconds after the burst).
 */
const REST_STEP_MS = 50;
/**
 * Backlog limits per store until the writer's own rate is measured (backlog-limit.ts): small
 * enough for a full-speed drain to fit main.ts's stop deadline on a slow machine, smaller on the
 * embedded store, whose writes share the event loop. CLICK_BACKLOG fixes the limit instead.
 */
export const DEFAULT_BACKLOG_LIMIT: Record<Db['kind'], number> = { postgres: 250_000, pglite: 25_000 };
/** No append for this long means traffic is quiet: the batcher then runs at full speed. */
const QUIET_AFTER_MS = 200;
/** A failed write is retried after 100 ms, doubling to 5 s; a stop retries a database that accepts nothing the same way. */
const RETRY: Backoff = { min: 100, max: 5000 };

export function createClickPipeline(
  deps: ClickPipelineDeps,
  options: ClickPipelineOptions = {},
): ClickPipeline {
  const batchSize = options.batchSize ?? STATEMENT_ROWS;
  const intervalMs = options.intervalMs ?? 100;
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  const backlog = options.backlogLimit !== undefined ? fixedBacklogLimit(options.backlogLimit) : measuredBacklogLimit(DEFAULT_BACKLOG_LIMIT[deps.db.kind]);
  const journalDir = journalDirOf(deps.dataDir);
  const journal: Journal<JournalEntry> = openJournal(journalDir, options.journal);
  const loop = options.loopMeter ?? (deps.writer ? threadLoopMeter() : idleLoopMeter);
  const setAsidePath = join(journalDir, SET_ASIDE_FILE);
  const batchesInFlight = deps.writer ? THREAD_BATCHES_IN_FLIGHT : 1;
  const writer = deps.writer
    ? deps.writer(setAsidePath)
    : createClickWriter({
      db: deps.db,
      enrich: deps.enrich,
      setAsidePath,
      yieldEvery: ENRICH_SLICE,
      statementRows: deps.db.kind === 'pglite' ? EMBEDDED_STATEMENT_ROWS : STATEMENT_ROWS,
    });
  const waiters: { target: number; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let running: Promise<void> | null = null;
  /** Writes failed in a row, and when the timer or an append may start the next. */
  let failures = 0;
  let retryAt = 0;
  let lastError: unknown;
  /** When the batch the drain waits for started; null while it waits for none. */
  let writingSince: number | null = null;
  let lastAppendAt = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let stopping = false;
  let stopped = false;
  /** Replaying at start is not measured: it runs alone, while a stop flushes beside the other pipelines. */
  let serving = false;
  let wake: (() => void) | undefined;
  let syncing: Promise<void> | null = null;
  /** After a failed sync the timer tries again from here (a stop tries at once). */
  let syncRetryAt = 0;

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

  /** The batcher's share of the time now: all of it unless clicks keep arriving and the backlog is short of the limit. */
  const share = (): number => {
    if (stopping || waiters.length > 0 || performance.now() - lastAppendAt > QUIET_AFTER_MS) return 1;
    return writeShare(journal.pending() / backlog.current(), loop.busy());
  };

  /** Waits `ms`; true when flush() or stop() cut the rest short. */
  const rest = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
    }).finally(() => (wake = undefined));

  /**
   * Before the next batch, rests for one that took `spentMs`, so the batcher keeps to its share
   * while traffic flows: `spentMs * (1 / share - 1)` at the share of the moment, looked at again
   * every REST_STEP_MS. A share of 0 rests until it is more.
   */
  const giveWay = async (spentMs: number) => {
    const from = performance.now();
    for (let now = share(); now < 1; now = share()) {
      const restMs = now > 0 ? spentMs * (1 / now - 1) : Number.POSITIVE_INFINITY;
      const left = restMs - (performance.now() - from);
      if (left <= 0 || (await rest(Math.min(left, REST_STEP_MS)))) return;
    }
  };

  /**
   * One drain at a time: batches are committed in journal order. At full speed, on a writer
   * thread of its own, the next batch is already on its way while the database writes the last
   * (inFlight); while giving way, one batch at a time, with a rest after it.
   */
  const drain = (): Promise<void> => {
    running ??= (async () => {
      const inFlight: InFlight[] = [];
      try {
        for (let spentMs = 0, lastCommitAt = 0; ; ) {
          // The rest for the batch before (none before the first, unless the share is 0: beside
          // a busy loop nothing is written until the backlog nears its limit).
          await giveWay(spentMs);
          const fullSpeed = share() >= 1;
          for (let depth = fullSpeed ? batchesInFlight : 1; inFlight.length < depth; ) {
            const batch = journal.readLines(BATCH_ROWS);
            if (!batch) break;
            // While giving way, a batch's statements run one after another: side by side they
            // would take every core the redirects need for as long as they run.
            const started = performance.now();
            const written = writer.write(batch.bytes, batch.count, { sideBySide: fullSpeed });
            written.catch(() => {}); // awaited in turn below; a later batch's failure waits for it
            inFlight.push({ batch, written, started, quiet: serving && (stopping || started - lastAppendAt > QUIET_AFTER_MS) });
          }
          const head = inFlight.shift();
          if (!head) break;
          writingSince = head.started;
          await head.written;
          writingSince = null;
          head.batch.commit();
          const committedAt = performance.now();
          // The rate a shutdown flush gets: full batches, at full speed, with nothing arriving
          // before them. With batches in flight, a batch's share of the time is from the commit
          // before (or its start, when later) to its own commit.
          if (head.quiet && head.batch.count === BATCH_ROWS) backlog.observe(head.batch.count, committedAt - Math.max(head.started, lastCommitAt));
          lastCommitAt = committedAt;
          failures = 0;
          retryAt = 0;
          lastError = undefined;
          settleWaiters();
          spentMs = committedAt - head.started;
        }
      } catch (error) {
        writingSince = null;
        // The batches after the failed one may still be running: a retry must not race them.
        // Their records are read again from the oldest uncommitted one; what they did write is
        // skipped by the idempotent insert.
        await Promise.allSettled(inFlight.map((batch) => batch.written));
        journal.rewind();
        lastError = error;
        const retryDelay = backoffDelay(RETRY, failures++);
        retryAt = Date.now() + retryDelay;
        console.error(`click pipeline: write failed, ${journal.pending()} records kept in the journal, retrying in ${retryDelay} ms:`, errorMessage(error));
        settleWaiters(error);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  /**
   * Deletes the journal's segments once the store has made their records durable: the commit
   * count is read first, then the store syncs, and only what was committed before is released.
   */
  const syncStore = (): Promise<void> => {
    syncing ??= (async () => {
      const committed = journal.committed();
      await deps.db.syncCommits();
      journal.release(committed);
      await journal.deleted();
    })()
      .catch((error) => {
        syncRetryAt = Date.now() + RETRY.max;
        console.error('click pipeline: syncing the store failed; its segments stay in the journal:', errorMessage(error));
      })
      .finally(() => (syncing = null));
    return syncing;
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
    loop.sample();
    if (journal.pending() > 0 && Date.now() >= retryAt) void drain();
    if (journal.releasable() && Date.now() >= syncRetryAt) void syncStore();
  };

  return {
    recordClick: (click, query) => {
      append(query ? { k: 'c', r: click, q: query } : { k: 'c', r: click });
      options.onClick?.(click);
    },
    recordImpression: (impression) => append({ k: 'i', r: impression }),
    stageWhile: (run) => journal.stageWhile(run),
    writeStaged: () => journal.writeStaged(),
    stagedLosses: () => journal.stagedLosses(),
    flush,
    pending: () => journal.pending(),
    writerState: () =>
      lastError !== undefined ? 'retrying' : writingSince !== null && performance.now() - writingSince > STALLED_AFTER_MS ? 'stalled' : 'ok',
    backlogLimit: () => backlog.current(),
    async start() {
      writer.prepare?.();
      const replaying = journal.pending();
      if (replaying > 0) {
        await drain();
        await syncStore();
        console.log(
          journal.pending() === 0
            ? `click pipeline: replayed ${replaying} journaled records`
            : `click pipeline: ${journal.pending()} journaled records wait for the database`,
        );
      }
      serving = true;
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
      for (let retry = 0; ; ) {
        if (running) await running;
        const before = journal.pending();
        await drain();
        // A closed handle takes no retry: the journal keeps the records for the next start.
        if (journal.pending() === 0 || isHandleClosed(lastError)) break;
        if (journal.pending() < before) {
          lastProgress = Date.now();
          retry = 0;
          continue;
        }
        const delay = backoffDelay(RETRY, retry);
        if (Date.now() + delay - lastProgress > stopTimeoutMs) break;
        await Bun.sleep(delay);
        retry++;
      }
      if (journal.pending() > 0) console.error(`click pipeline: ${journal.pending()} records stay in the journal for the next start`);
      settleWaiters(new Error('click pipeline stopped'));
      await writer.close();
      if (syncing) await syncing;
      await syncStore();
      await journal.close();
    },
  };
}

