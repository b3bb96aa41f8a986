import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { lockFile } from '../../shared/file-lock';
import { DEFAULT_JOURNAL_SYNC_MS, journalSyncer, type SyncFile } from './journal-sync';

/** Appends held for one write (the answer batch stages a loop turn's clicks, ingest a call's rows). */
export interface StagedAppends {
  /** Runs `run`; what it appends is staged: encoded and held until `writeStaged` (or an append outside). */
  stageWhile<R>(run: () => R): R;
  /**
   * Writes the staged records in one write. A failed write is logged and counted in
   * `stagedLosses`, never thrown: those records are gone, so no answer that waited on them may
   * say they were accepted.
   */
  writeStaged(): void;
  /** How many times staged records were dropped because their write failed. */
  stagedLosses(): number;
}

/**
 * An append-only journal of JSON lines in numbered segment files. The active segment is a file
 * written full of zeros: an append is a positioned write into the page cache, kept even if the
 * process is killed, and synced to the disk by a timer off the event loop. Appends made inside
 * `stageWhile` wait in memory for `writeStaged`, so a loop turn's clicks take one write (the
 * answer batch writes them before any of their answers goes out). The file is read through a
 * mapping, never written through one: syncing pages dirtied through a mapping write-protects each
 * again, one TLB shootdown of the event loop's core per page (docs/tracking.md, "Journal"). Records are
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
  /**
   * The next records after those already read (at most `max`, from one segment): `count` UTF-8
   * JSON lines joined by '\n', a view valid until `commit`. Batches commit in the order read.
   */
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

export interface JournalBatch {
  bytes: Uint8Array;
  count: number;
  /** Marks the batch done; throws unless every batch read before it is committed. */
  commit(): void;
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
  /** Writes bytes into a segment at a position and answers how many were written; by default pwrite. */
  writeAt?: WriteAt;
}

export type WriteAt = (fd: number, bytes: Uint8Array, length: number, position: number) => number;

const pwrite: WriteAt = (fd, bytes, length, position) => writeSync(fd, bytes, 0, length, position);

interface Segment {
  seq: number;
  path: string;
  /** The active segment's file, written at `size` by each append; null once closed. */
  fd: number | null;
  /** The active segment's mapping, for reading what was appended; null once closed. */
  map: Uint8Array | null;
  /** The written part of a closed segment, mapped once its turn comes (dropped when it is deleted). */
  bytes: Uint8Array | null;
  size: number;
  /** Bytes known to be on disk (journal-sync.ts). */
  synced: number;
  count: number;
  /** Records committed, and the byte offset after them. */
  done: number;
  doneOffset: number;
  /** committed() when the last of its records so far was committed. */
  doneAt: number;
  /** Records handed out by readLines (committed or not), and the byte offset after them. */
  read: number;
  readOffset: number;
  closed: boolean;
}

const SEGMENT_FILE = /^segment-(\d{12})\.jsonl$/;
const LOCK_FILE = 'journal.pid';
const SPARE_FILE = 'next-segment.tmp';
const ZEROS = new Uint8Array(1024 * 1024);
const NEWLINE = 0x0a;
const decoder = new TextDecoder();

export function openJournal<T>(dir: string, options: JournalOptions = {}): Journal<T> {
  const segmentBytes = options.segmentBytes ?? 8 * 1024 * 1024;
  const syncMs = options.syncMs ?? DEFAULT_JOURNAL_SYNC_MS;
  const writeAt = options.writeAt ?? pwrite;
  mkdirSync(dir, { recursive: true });
  const unlock = lockDir(dir);
  const segments: Segment[] = [];
  let appendedTotal = 0;
  let committedTotal = 0;
  let pendingTotal = 0;
  /** Records committed at or before this count are durable in the store. */
  let releasedTotal = 0;

  // Segments left by an earlier run (crash or unflushed stop): replayed first, in order.
  const existing = readdirSync(dir)
    .map((name) => SEGMENT_FILE.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ seq: Number(match[1]), path: join(dir, match[0]) }))
    .sort((a, b) => a.seq - b.seq);
  for (const { seq, path } of existing) {
    const bytes = written(readFileSync(path));
    const count = countLines(bytes);
    if (count === 0) {
      rmSync(path, { force: true });
      continue;
    }
    segments.push({ seq, path, fd: null, map: null, bytes: null, size: bytes.length, synced: 0, count, done: 0, doneOffset: 0, doneAt: 0, read: 0, readOffset: 0, closed: true });
    pendingTotal += count;
  }
  let nextSeq = (existing[existing.length - 1]?.seq ?? 0) + 1;
  const syncer = journalSyncer({ dir, syncMs, syncFile: options.syncFile, files: () => segments, namesSynced: segments.length === 0 });
  let active: Segment | null = null;
  const sparePath = join(dir, SPARE_FILE);
  rmSync(sparePath, { force: true }); // half written by an earlier run
  let spareReady = false;
  let preparing: Promise<void> | null = null;
  /** Staged lines (UTF-8, each ending in '\n'), or one line about to be written; grown as needed. */
  let outgoing = Buffer.allocUnsafe(64 * 1024);
  let stagedBytes = 0;
  let stagedCount = 0;
  let stagingDepth = 0;
  let losses = 0;

  /** Writes `length` bytes of `outgoing` at the end of the active segment, or throws. */
  const writeOut = (length: number) => {
    // A short write is not counted and the next write goes over it (docs/tracking.md, "Journal").
    if (writeAt(active!.fd!, outgoing, length, active!.size) !== length) throw new Error('journal: a write came back short (disk full?)');
    active!.size += length;
  };
  const counted = (records: number) => {
    active!.count += records;
    appendedTotal += records;
    pendingTotal += records;
  };
  /** Encodes one line into `outgoing` at `at`; answers the offset after it. */
  const encodeAt = (json: string, bound: number, at: number): number => {
    if (outgoing.length < at + bound) {
      const grown = Buffer.allocUnsafe(Math.max(at + bound, outgoing.length * 2));
      outgoing.copy(grown, 0, 0, at);
      outgoing = grown;
    }
    const end = at + outgoing.write(json, at);
    outgoing[end] = NEWLINE;
    return end + 1;
  };
  const writeStaged = () => {
    if (stagedCount === 0) return;
    const bytes = stagedBytes;
    const records = stagedCount;
    stagedBytes = 0;
    stagedCount = 0;
    try {
      writeOut(bytes);
      counted(records);
    } catch (error) {
      losses++;
      console.error(`journal: ${records} staged records could not be written; their answers say so`, error);
    }
  };

  const prepareSpare = () => {
    if (preparing || spareReady) return;
    preparing = (async () => {
      const file = await open(sparePath, 'w');
      try {
        for (let at = 0; at < segmentBytes; at += ZEROS.length) await file.write(ZEROS, 0, Math.min(ZEROS.length, segmentBytes - at));
        // Its zeros reach the disk now, so that a timed sync of the segment carries only the records.
        if (syncMs > 0) await file.datasync();
      } finally {
        await file.close();
      }
      spareReady = true;
    })()
      .catch((error) => console.error('journal: preparing the next segment failed', error))
      .finally(() => (preparing = null));
  };

  const openSegment = (): Segment => {
    const seq = nextSeq++;
    const path = join(dir, `segment-${String(seq).padStart(12, '0')}.jsonl`);
    if (spareReady) {
      renameSync(sparePath, path);
      spareReady = false;
    } else {
      // Zeros written now, not a sparse file: a segment's blocks are taken before its first
      // record, so an append overwrites and never allocates, and a sync carries no metadata.
      const fd = openSync(path, 'wx');
      try {
        for (let at = 0; at < segmentBytes; at += ZEROS.length) writeSync(fd, ZEROS, 0, Math.min(ZEROS.length, segmentBytes - at));
      } catch (error) {
        closeSync(fd);
        rmSync(path, { force: true });
        throw error;
      }
      closeSync(fd);
    }
    syncer.nameChanged();
    const fd = openSync(path, 'r+');
    let map: Uint8Array;
    try {
      map = Bun.mmap(path);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    const segment: Segment = { seq, path, fd, map, bytes: null, size: 0, synced: 0, count: 0, done: 0, doneOffset: 0, doneAt: 0, read: 0, readOffset: 0, closed: false };
    segments.push(segment);
    prepareSpare();
    return segment;
  };
  prepareSpare();

  const retire = (segment: Segment) => {
    segment.closed = true;
    if (segment.fd !== null) closeSync(segment.fd);
    segment.fd = null;
    segment.map = null; // unmapped when collected; the file is never truncated under a live mapping
    if (isReleased(segment)) remove(segment);
  };

  const isSettled = (segment: Segment) => segment.closed && segment.done === segment.count;
  const isReleased = (segment: Segment) => isSettled(segment) && segment.doneAt <= releasedTotal;

  /**
   * Deletions of released segments, one after another on the pool: with online discard an
   * unlink waits for the device, which held the event loop 3.6 ms. A crash before one ends replays
   * the segment, and the inserts skip what is stored.
   */
  let deleting: Promise<void> = Promise.resolve();
  const remove = (segment: Segment) => {
    segments.splice(segments.indexOf(segment), 1);
    const path = segment.path;
    deleting = deleting.then(() => rm(path, { force: true }).catch((error) => console.error('journal: deleting a released segment failed', error)));
  };

  const readLines = (max: number): JournalBatch | null => {
    const segment = segments.find((s) => s.read < s.count);
    if (!segment) return null;
    // A closed segment is mapped once its turn comes (the oldest, and the next one while a batch
    // read ahead crosses into it): read into the heap, a whole segment would hold the event loop.
    const source = segment.map ?? (segment.bytes ??= Bun.mmap(segment.path).subarray(0, segment.size));
    const start = segment.readOffset;
    let end = start;
    let lines = 0;
    while (lines < max && segment.read + lines < segment.count) {
      end = source.indexOf(NEWLINE, end) + 1;
      lines++;
    }
    segment.read += lines;
    segment.readOffset = end;
    return {
      bytes: source.subarray(start, end - 1),
      count: lines,
      commit() {
        // Done records are a prefix: of the oldest segment with records not done, up to this batch.
        if (segments.find((s) => s.done < s.count) !== segment || segment.doneOffset !== start) throw new Error('journal: commit out of order');
        segment.done += lines;
        segment.doneOffset = end;
        committedTotal += lines;
        pendingTotal -= lines;
        segment.doneAt = committedTotal;
        if (isSettled(segment)) segment.bytes = null; // kept on disk until released, no longer mapped
      },
    };
  };

  const rewind = () => {
    for (const segment of segments) {
      segment.read = segment.done;
      segment.readOffset = segment.doneOffset;
    }
  };

  return {
    append(record) {
      const json = JSON.stringify(record);
      // The line is the JSON and '\n'. UTF-8 takes at most 3 bytes per UTF-16 unit; checking
      // that bound first means a line is never split.
      const bound = (json.length + 1) * 3;
      if (!active || active.size + stagedBytes + bound > segmentBytes) {
        if (bound > segmentBytes) throw new Error(`journal: a record of ${json.length + 1} characters exceeds the segment size`);
        if (active) {
          writeStaged();
          retire(active);
          active = null; // if the next segment cannot be made, the append fails and the next one retries
        }
        active = openSegment();
      }
      if (stagingDepth > 0) {
        stagedBytes = encodeAt(json, bound, stagedBytes);
        stagedCount++;
        return;
      }
      writeStaged(); // records keep their order in the file
      writeOut(encodeAt(json, bound, 0));
      counted(1);
    },
    stageWhile(run) {
      stagingDepth++;
      try {
        return run();
      } finally {
        stagingDepth--;
      }
    },
    writeStaged,
    stagedLosses: () => losses,
    pending: () => pendingTotal,
    appended: () => appendedTotal,
    committed: () => committedTotal,
    readLines,
    rewind,
    releasable: () => segments.some(isSettled),
    release(upTo) {
      releasedTotal = Math.max(releasedTotal, Math.min(upTo, committedTotal));
      for (const segment of segments.filter(isReleased)) remove(segment);
    },
    deleted: () => deleting,
    peek(max) {
      rewind();
      const batch = readLines(max);
      return batch && { records: parseLines<T>(batch.bytes, batch.count), commit: batch.commit };
    },
    async close() {
      syncer.stop();
      if (active) writeStaged();
      if (active) retire(active);
      active = null;
      await preparing;
      await deleting;
      rmSync(sparePath, { force: true });
      await syncer.sync().catch((error) => console.error('journal: syncing to disk at close failed', error));
      unlock();
    },
  };
}

/**
 * The records of `count` JSON lines (UTF-8, as readLines gives them). JSON text never holds a raw
 * newline, so the lines joined by commas are one JSON array: one parse for the whole batch. Only
 * when that fails (a damaged line) are they parsed one by one, skipping what cannot be read.
 */
export function parseLines<T>(bytes: Uint8Array, count: number): T[] {
  const text = decoder.decode(bytes);
  try {
    const records = JSON.parse(`[${text.replaceAll('\n', ',')}]`) as T[];
    if (records.length === count) return records;
  } catch {}
  const records: T[] = [];
  for (const line of text.split('\n')) {
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      console.error(`journal: skipping an unreadable line: ${line.slice(0, 200)}`);
    }
  }
  return records;
}

/** Whether `dir` holds a journal's segment files: only then has an earlier run left records to replay. */
export function holdsSegments(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).some((name) => SEGMENT_FILE.test(name));
}

/** The written part of a segment: up to the first zero byte (the preallocated, never written tail). */
function written(bytes: Uint8Array): Uint8Array {
  const end = bytes.indexOf(0);
  return end < 0 ? bytes : bytes.subarray(0, end);
}

/** Complete lines only: a line a crash cut short has no '\n' and is not counted. */
function countLines(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

export class JournalBusy extends Error {}

const heldHere = new Set<string>();

/** One process per journal directory: two writers would replay and delete each other's segments. */
function lockDir(dir: string): () => void {
  const file = join(dir, LOCK_FILE);
  if (heldHere.has(file)) throw new JournalBusy(`the click journal in ${dir} is already open in this process`);
  const release = lockFile(file, (holder) =>
    new JournalBusy(`the click journal in ${dir} is held by a running process${holder ? ` (pid ${holder})` : ''}; give each node its own DATA_DIR`),
  );
  heldHere.add(file);
  return () => {
    heldHere.delete(file);
    release();
  };
}
