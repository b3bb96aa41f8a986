import { mkdirSync, writeSync } from 'node:fs';
import { DEFAULT_JOURNAL_SYNC_MS } from '../../../config/defaults';
import { journalSyncer, type JournalSyncer, type SyncFile } from './journal-sync';
import { lockJournalDir } from './journal-lock';
import { parseLines } from './parse-lines';
import { ReadCursor, type JournalBatch } from './read-cursor';
import { activeSegment, closeSegment, isSettled, leftSegment, writeInto, type JournalCounts, type Segment, type WriteAt } from './segment';
import { createZeroFilled, leftSegments, segmentPath, serialDeletions } from './segment-files';
import { SpareSegment } from './spare-segment';
import { Staging, type StagedAppends } from './staging';

/**
 * An append-only journal of JSON lines in numbered segment files. The active segment is a file
 * written full of zeros: an append is a positioned write into the page cache, kept even if the
 * process is killed, and synced to the disk by a timer off the event loop. Appends made inside
 * `stageWhile` wait in memory for `writeStaged`, so a loop turn's clicks take one write (the
 * answer batch writes them before any of their answers goes out). The file is read through a
 * mapping, never written through one: syncing pages dirtied through a mapping write-protects each
 * again, one TLB shootdown of the event loop's core per page (docs/click-pipeline.md, "Journal"). Records are
 * committed oldest first, as a prefix, and never held in the heap. A line ends with '\n' and the
 * unwritten tail is zeros, so a line a crash cut short is skipped.
 */
export interface Journal<T> extends StagedAppends {
  /** Writes the record (after any staged ones); inside `stageWhile` only stages it. Throws when it cannot be written. */
  append(record: T): void;
  /** Records appended and not yet committed. */
  pending(): number;
  /** Total appended since open (a position for flush waiters) and total committed. */
  appended(): number;
  committed(): number;
  /**
   * The oldest uncommitted records (at most `max`, from one segment); `commit` marks them done.
   * Rewinds the read position first (see readLines).
   */
  peek(max: number): { records: T[]; commit(): void } | null;
  /** The next records after those already read (ReadCursor.readLines). */
  readLines(max: number): JournalBatch | null;
  /** Moves the read position back to the oldest uncommitted record, e.g. to retry after a failed write. */
  rewind(): void;
  /**
   * Whether a closed segment has every record committed and waits for `release`: a segment is
   * deleted only once the store has made its records durable.
   */
  releasable(): boolean;
  /**
   * Deletes the closed segments whose records were all committed at or before `upTo`, a
   * `committed()` read before the store made its commits durable (Db.syncCommits).
   */
  release(upTo: number): void;
  /** Resolves once every segment released so far is deleted (deletions run off the event loop). */
  deleted(): Promise<void>;
  close(): Promise<void>;
}

export interface JournalOptions {
  /** Size of a segment file. */
  segmentBytes?: number;
  /**
   * How often what was appended is synced to the disk (JOURNAL_SYNC_MS); 0: never by a timer,
   * only at close, leaving the rest to the kernel's writeback.
   */
  syncMs?: number;
  /** Makes a file or directory reach the disk; by default fdatasync on a thread of the pool, not the event loop. */
  syncFile?: SyncFile;
  /** By default pwrite. */
  writeAt?: WriteAt;
}

const pwrite: WriteAt = (fd, bytes, length, position) => writeSync(fd, bytes, 0, length, position);

export function openJournal<T>(dir: string, options: JournalOptions = {}): Journal<T> {
  return new SegmentJournal<T>(dir, options);
}

/**
 * The journal composed of its parts: the segment files (segment-files.ts, spare-segment.ts),
 * the staging of appends (staging.ts), the read cursor and commit order (read-cursor.ts) and
 * the disk sync (journal-sync.ts). Here: appending, and releasing what the store holds.
 */
class SegmentJournal<T> implements Journal<T> {
  private readonly segmentBytes: number;
  private readonly writeAt: WriteAt;
  private readonly unlock: () => void;
  private readonly segments: Segment[] = [];
  private readonly counts: JournalCounts = { appended: 0, committed: 0, pending: 0 };
  /** Records committed at or before this count are durable in the store. */
  private releasedTotal = 0;
  private nextSeq: number;
  private active: Segment | null = null;
  private readonly syncer: JournalSyncer;
  private readonly spare: SpareSegment;
  private readonly deletions = serialDeletions();
  private readonly staging: Staging;
  private readonly cursor: ReadCursor;

  constructor(private readonly dir: string, options: JournalOptions) {
    this.segmentBytes = options.segmentBytes ?? 8 * 1024 * 1024;
    const syncMs = options.syncMs ?? DEFAULT_JOURNAL_SYNC_MS;
    this.writeAt = options.writeAt ?? pwrite;
    mkdirSync(dir, { recursive: true });
    this.unlock = lockJournalDir(dir);
    // Segments left by an earlier run (crash or unflushed stop): replayed first, in order.
    const left = leftSegments(dir);
    for (const segment of left.segments) {
      this.segments.push(leftSegment(segment));
      this.counts.pending += segment.count;
    }
    this.nextSeq = left.lastSeq + 1;
    this.syncer = journalSyncer({ dir, syncMs, syncFile: options.syncFile, files: () => this.segments, namesSynced: this.segments.length === 0 });
    this.spare = new SpareSegment(dir, this.segmentBytes, syncMs);
    this.staging = new Staging({
      write: (bytes, length) => writeInto(this.active!, this.writeAt, bytes, length),
      counted: (records) => {
        this.active!.count += records;
        this.counts.appended += records;
        this.counts.pending += records;
      },
    });
    this.cursor = new ReadCursor(this.segments, this.counts);
    this.spare.prepare();
  }

  append(record: T): void {
    const json = JSON.stringify(record);
    // The line is the JSON and '\n'. UTF-8 takes at most 3 bytes per UTF-16 unit; checking
    // that bound first means a line is never split.
    const bound = (json.length + 1) * 3;
    if (!this.active || this.active.size + this.staging.stagedBytes + bound > this.segmentBytes) {
      if (bound > this.segmentBytes) throw new Error(`journal: a record of ${json.length + 1} characters exceeds the segment size`);
      if (this.active) {
        this.staging.writeStaged();
        this.retire(this.active);
        this.active = null; // if the next segment cannot be made, the append fails and the next one retries
      }
      this.active = this.openSegment();
    }
    if (this.staging.staging) this.staging.stage(json, bound);
    else this.staging.writeLine(json, bound); // records keep their order in the file
  }

  stageWhile<R>(run: () => R): R {
    return this.staging.stageWhile(run);
  }

  writeStaged(): void {
    this.staging.writeStaged();
  }

  stagedLosses(): number {
    return this.staging.stagedLosses();
  }

  pending(): number {
    return this.counts.pending;
  }

  appended(): number {
    return this.counts.appended;
  }

  committed(): number {
    return this.counts.committed;
  }

  readLines(max: number): JournalBatch | null {
    return this.cursor.readLines(max);
  }

  rewind(): void {
    this.cursor.rewind();
  }

  peek(max: number): { records: T[]; commit(): void } | null {
    this.cursor.rewind();
    const batch = this.cursor.readLines(max);
    return batch && { records: parseLines<T>(batch.bytes, batch.count), commit: batch.commit };
  }

  releasable(): boolean {
    return this.segments.some(isSettled);
  }

  release(upTo: number): void {
    this.releasedTotal = Math.max(this.releasedTotal, Math.min(upTo, this.counts.committed));
    for (const segment of this.segments.filter((s) => this.isReleased(s))) this.remove(segment);
  }

  deleted(): Promise<void> {
    return this.deletions.done();
  }

  async close(): Promise<void> {
    this.syncer.stop();
    if (this.active) this.staging.writeStaged();
    if (this.active) this.retire(this.active);
    this.active = null;
    await this.spare.close();
    await this.deletions.done();
    await this.syncer.sync().catch((error) => console.error('journal: syncing to disk at close failed', error));
    this.unlock();
  }

  /** The next segment: the spare renamed when it is ready, else a file filled with zeros now. */
  private openSegment(): Segment {
    const seq = this.nextSeq++;
    const path = segmentPath(this.dir, seq);
    if (!this.spare.takeAs(path)) createZeroFilled(path, this.segmentBytes);
    this.syncer.nameChanged();
    const segment = activeSegment(seq, path);
    this.segments.push(segment);
    this.spare.prepare();
    return segment;
  }

  private retire(segment: Segment): void {
    closeSegment(segment);
    if (this.isReleased(segment)) this.remove(segment);
  }

  private isReleased(segment: Segment): boolean {
    return isSettled(segment) && segment.doneAt <= this.releasedTotal;
  }

  private remove(segment: Segment): void {
    this.segments.splice(this.segments.indexOf(segment), 1);
    this.deletions.delete(segment.path);
  }
}
