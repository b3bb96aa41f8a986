import { isHandleClosed } from '../../db/errors';
import { backoffDelay, type Backoff } from '../../shared/backoff';
import { errorMessage } from '../../shared/error-message';
import type { JournalEntry } from '../tracking.model';
import { STATEMENT_ROWS, type ClickWriter } from './click-writer';
import type { FlushWaiters } from './flush-waiters';
import type { Journal } from './journal/journal';
import type { JournalBatch } from './journal/read-cursor';
import type { BacklogLimit, Pacer } from './pacing';

/** A failed write is retried after 100 ms, doubling to 5 s; a stop retries a database that accepts nothing the same way. */
export const WRITE_RETRY: Backoff = { min: 100, max: 5000 };
/** Records per batch: several statements, run side by side. */
const BATCH_ROWS = STATEMENT_ROWS * 4;

/** A batch handed to the writer and not yet committed from the journal. */
interface InFlight {
  batch: JournalBatch;
  written: Promise<void>;
  started: number;
  /** Started at full speed with no record arriving: its time measures the writer's rate. */
  quiet: boolean;
}

export interface BatcherDeps {
  journal: Journal<JournalEntry>;
  writer: ClickWriter;
  pacer: Pacer;
  backlog: BacklogLimit;
  waiters: FlushWaiters;
  /** Batches the writer is handed at once at full speed. */
  batchesInFlight: number;
  /** `serving` once the replay at start is over (a replay is not measured); `stopped` once stop() began. */
  lifecycle: { readonly serving: boolean; readonly stopped: boolean };
}

/**
 * Reads the journal in order and hands its batches to the writer, committing each once written;
 * after a failure, rewinds to the oldest uncommitted record and waits before the next try.
 */
export class Batcher {
  private running: Promise<void> | null = null;
  /** Writes failed in a row, and when the timer or an append may start the next. */
  private failures = 0;
  private retryAt = 0;
  private lastError: unknown;
  /** When the batch the drain waits for started; null while it waits for none. */
  private writingSince: number | null = null;

  constructor(private readonly deps: BatcherDeps) {}

  /** Whether a drain may start now: no failed write waits for its retry. */
  mayStart(): boolean {
    return Date.now() >= this.retryAt;
  }

  /** Whether the last write failed (records wait for the retry). */
  failing(): boolean {
    return this.lastError !== undefined;
  }

  /** When the batch the drain waits for started (performance.now()), or null. */
  batchWaitedSince(): number | null {
    return this.writingSince;
  }

  /**
   * One drain at a time: batches are committed in journal order. At full speed, on a writer
   * thread of its own, the next batch is already on its way while the database writes the last
   * (inFlight); while giving way, one batch at a time, with a rest after it.
   */
  drain(): Promise<void> {
    this.running ??= this.run();
    return this.running;
  }

  /**
   * Drains until the journal is empty, retrying a database that accepts nothing with the
   * backoff, for at most `timeoutMs` without progress (the journal keeps the rest).
   */
  async drainBeforeStop(timeoutMs: number): Promise<void> {
    let lastProgress = Date.now();
    for (let retry = 0; ; ) {
      if (this.running) await this.running;
      const before = this.deps.journal.pending();
      await this.drain();
      // A closed handle takes no retry: the journal keeps the records for the next start.
      if (this.deps.journal.pending() === 0 || isHandleClosed(this.lastError)) break;
      if (this.deps.journal.pending() < before) {
        lastProgress = Date.now();
        retry = 0;
        continue;
      }
      const delay = backoffDelay(WRITE_RETRY, retry);
      if (Date.now() + delay - lastProgress > timeoutMs) break;
      await Bun.sleep(delay);
      retry++;
    }
  }

  private async run(): Promise<void> {
    const inFlight: InFlight[] = [];
    try {
      await this.writeInTurn(inFlight);
    } catch (error) {
      await this.failed(error, inFlight);
    } finally {
      this.running = null;
    }
  }

  private async writeInTurn(inFlight: InFlight[]): Promise<void> {
    for (let spentMs = 0, lastCommitAt = 0; ; ) {
      // The rest for the batch before (none before the first, unless the share is 0: beside
      // a busy loop nothing is written until the backlog nears its limit).
      await this.deps.pacer.giveWay(spentMs);
      this.handOut(inFlight, this.deps.pacer.share() >= 1);
      const head = inFlight.shift();
      if (!head) break;
      this.writingSince = head.started;
      await head.written;
      this.writingSince = null;
      head.batch.commit();
      const committedAt = performance.now();
      // The rate a shutdown flush gets: full batches, at full speed, with nothing arriving
      // before them. With batches in flight, a batch's share of the time is from the commit
      // before (or its start, when later) to its own commit.
      if (head.quiet && head.batch.count === BATCH_ROWS) this.deps.backlog.observe(head.batch.count, committedAt - Math.max(head.started, lastCommitAt));
      lastCommitAt = committedAt;
      this.failures = 0;
      this.retryAt = 0;
      this.lastError = undefined;
      this.deps.waiters.settle();
      spentMs = committedAt - head.started;
    }
  }

  /** Hands the writer batches until `fullSpeed`'s depth is in flight or the journal has no more. */
  private handOut(inFlight: InFlight[], fullSpeed: boolean): void {
    const { journal, writer, pacer, lifecycle } = this.deps;
    for (let depth = fullSpeed ? this.deps.batchesInFlight : 1; inFlight.length < depth; ) {
      const batch = journal.readLines(BATCH_ROWS);
      if (!batch) break;
      // While giving way, a batch's statements run one after another: side by side they
      // would take every core the redirects need for as long as they run.
      const started = performance.now();
      const written = writer.write(batch.bytes, batch.count, { sideBySide: fullSpeed });
      written.catch(() => {}); // awaited in turn by writeInTurn; a later batch's failure waits for it
      inFlight.push({ batch, written, started, quiet: lifecycle.serving && (lifecycle.stopped || pacer.quietAt(started)) });
    }
  }

  private async failed(error: unknown, inFlight: InFlight[]): Promise<void> {
    this.writingSince = null;
    // The batches after the failed one may still be running: a retry must not race them.
    // Their records are read again from the oldest uncommitted one; what they did write is
    // skipped by the idempotent insert.
    await Promise.allSettled(inFlight.map((batch) => batch.written));
    const { journal } = this.deps;
    journal.rewind();
    this.lastError = error;
    const retryDelay = backoffDelay(WRITE_RETRY, this.failures++);
    this.retryAt = Date.now() + retryDelay;
    console.error(`click pipeline: write failed, ${journal.pending()} records kept in the journal, retrying in ${retryDelay} ms:`, errorMessage(error));
    this.deps.waiters.settle(error);
  }
}
