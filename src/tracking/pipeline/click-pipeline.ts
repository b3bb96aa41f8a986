import { join } from 'node:path';
import type { Db } from '../../db/db';
import type { ImpressionRecord, JournaledClick, JournalEntry } from '../tracking.model';
import { Batcher, WRITE_RETRY } from './batcher';
import { createClickWriter, EMBEDDED_STATEMENT_ROWS, STATEMENT_ROWS, type ClickWriter, type Enrich } from './click-writer';
import { FlushWaiters } from './flush-waiters';
import { openJournal, type Journal, type JournalOptions } from './journal/journal';
import type { StagedAppends } from './journal/staging';
import { fixedBacklogLimit, idleLoopMeter, measuredBacklogLimit, Pacer, threadLoopMeter, type LoopMeter } from './pacing';
import { StoreSync } from './store-sync';

export type { Enrich } from './click-writer';

/**
 * The durable path from an answered redirect to Postgres: the click is journaled before the answer;
 * a batcher writes journaled records idempotently (a replay or retry never duplicates a row), giving
 * way to redirects while clicks arrive (pacing.ts; docs/click-pipeline.md, "The click pipeline"). Its
 * parts: the journal (journal/), the batcher (batcher.ts), the pacing, the store sync (store-sync.ts).
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
  /** The backlog at which the batcher stops giving way: CLICK_BACKLOG, or measured (pacing.ts). */
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
   * Unset: what the writer is measured to write within FLUSH_BUDGET_MS (pacing.ts),
   * DEFAULT_BACKLOG_LIMIT until it is measured.
   */
  backlogLimit?: number;
  journal?: JournalOptions;
  /** Told of each click once it is journaled: the realtime counters (src/tracking/counts/click-counter.ts). */
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

/**
 * Batches handed at once to a writer on a thread of its own, at full speed: it enriches the next
 * while the database writes the last. A writer on this event loop writes everything in turn.
 */
export const THREAD_BATCHES_IN_FLIGHT = 2;

/** A pipeline's journal lives here, under its data directory. */
export const journalDirOf = (dataDir: string) => join(dataDir, 'journal');
/** Where records the database refused are kept, one JSON line each, in the journal's directory. */
export const SET_ASIDE_FILE = 'refused.jsonl';
/** Clicks enriched between two yields to the event loop when the writer runs in process. */
const ENRICH_SLICE = 32;
/**
 * Backlog limits per store until the writer's own rate is measured (pacing.ts): small
 * enough for a full-speed drain to fit main.ts's stop deadline on a slow machine, smaller on the
 * embedded store, whose writes share the event loop. CLICK_BACKLOG fixes the limit instead.
 */
export const DEFAULT_BACKLOG_LIMIT: Record<Db['kind'], number> = { postgres: 250_000, pglite: 25_000 };

export function createClickPipeline(deps: ClickPipelineDeps, options: ClickPipelineOptions = {}): ClickPipeline {
  const batchSize = options.batchSize ?? STATEMENT_ROWS;
  const intervalMs = options.intervalMs ?? 100;
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  const backlog = options.backlogLimit !== undefined ? fixedBacklogLimit(options.backlogLimit) : measuredBacklogLimit(DEFAULT_BACKLOG_LIMIT[deps.db.kind]);
  const journalDir = journalDirOf(deps.dataDir);
  const journal: Journal<JournalEntry> = openJournal(journalDir, options.journal);
  const loop = options.loopMeter ?? (deps.writer ? threadLoopMeter() : idleLoopMeter);
  const writer = writerOf(deps, join(journalDir, SET_ASIDE_FILE));
  /** Replaying at start is not measured: it runs alone, while a stop flushes beside the other pipelines. */
  const lifecycle = { serving: false, stopped: false };
  const waiters = new FlushWaiters(() => journal.committed());
  const pacer = new Pacer({ backlog, loop, pending: () => journal.pending(), urgent: () => lifecycle.stopped || waiters.waiting() });
  const batchesInFlight = deps.writer ? THREAD_BATCHES_IN_FLIGHT : 1;
  const batcher = new Batcher({ journal, writer, pacer, backlog, waiters, batchesInFlight, lifecycle });
  // After a failed sync the timer tries again after the longest write retry.
  const storeSync = new StoreSync(deps.db, journal, WRITE_RETRY.max);
  let timer: ReturnType<typeof setInterval> | undefined;

  const append = (entry: JournalEntry) => {
    if (lifecycle.stopped) throw new Error('click pipeline is stopped');
    journal.append(entry);
    pacer.noteAppend();
    if (journal.pending() >= batchSize && batcher.mayStart()) void batcher.drain();
  };
  const tick = () => {
    loop.sample();
    if (journal.pending() > 0 && batcher.mayStart()) void batcher.drain();
    if (storeSync.due()) void storeSync.sync();
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
    flush: () => {
      const target = journal.appended();
      if (journal.committed() >= target) return Promise.resolve();
      const done = waiters.add(target);
      pacer.wake();
      void batcher.drain();
      return done;
    },
    pending: () => journal.pending(),
    writerState: () => writerStateOf(batcher),
    backlogLimit: () => backlog.current(),
    async start() {
      writer.prepare?.();
      await replay(journal, batcher, storeSync);
      lifecycle.serving = true;
      timer = setInterval(tick, intervalMs);
      timer.unref?.();
    },
    async stop() {
      if (lifecycle.stopped) return;
      lifecycle.stopped = true;
      clearInterval(timer);
      pacer.wake();
      await batcher.drainBeforeStop(stopTimeoutMs);
      if (journal.pending() > 0) console.error(`click pipeline: ${journal.pending()} records stay in the journal for the next start`);
      waiters.settle(new Error('click pipeline stopped'));
      await writer.close();
      await storeSync.syncAgain();
      await journal.close();
    },
  };
}

/** In process on `db`, yielding to requests as it goes, or the writer `deps` names. */
function writerOf(deps: ClickPipelineDeps, setAsidePath: string): ClickWriter {
  if (deps.writer) return deps.writer(setAsidePath);
  return createClickWriter({
    db: deps.db,
    enrich: deps.enrich,
    setAsidePath,
    yieldEvery: ENRICH_SLICE,
    statementRows: deps.db.kind === 'pglite' ? EMBEDDED_STATEMENT_ROWS : STATEMENT_ROWS,
  });
}

/** Writes what an earlier run left in the journal, before the node serves. */
async function replay(journal: Journal<JournalEntry>, batcher: Batcher, storeSync: StoreSync): Promise<void> {
  const replaying = journal.pending();
  if (replaying === 0) return;
  await batcher.drain();
  await storeSync.sync();
  console.log(
    journal.pending() === 0
      ? `click pipeline: replayed ${replaying} journaled records`
      : `click pipeline: ${journal.pending()} journaled records wait for the database`,
  );
}

function writerStateOf(batcher: Batcher): WriterState {
  if (batcher.failing()) return 'retrying';
  const since = batcher.batchWaitedSince();
  return since !== null && performance.now() - since > STALLED_AFTER_MS ? 'stalled' : 'ok';
}
