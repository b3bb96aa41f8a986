import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An append-only journal of JSON lines in numbered segment files. `append` returns only after
 * the line is in the file (a synchronous write: the operating system keeps it even if this
 * process is killed with -9), so a redirect answered after it is never lost. Records are
 * consumed oldest first and committed as a prefix; a segment file is deleted only once it is
 * closed and all of its records are committed.
 *
 * Memory stays bounded however long the database is away: only the newest few segments keep
 * their records in memory; the others are read back from disk when their turn comes.
 */
export interface Journal<T> {
  append(record: T): void;
  /** Records appended and not yet committed. */
  pending(): number;
  /** Total appended since open (a position for flush waiters) and total committed. */
  appended(): number;
  committed(): number;
  /** Records held in memory (bounded by segmentRecords x (memorySegments + 1)). */
  memoryRecords(): number;
  /** The oldest uncommitted records (at most `max`, from one segment); `commit` marks them done. */
  peek(max: number): { records: T[]; commit(): void } | null;
  close(): void;
}

export interface JournalOptions {
  /** Records per segment file. */
  segmentRecords?: number;
  /** Segments whose records are also kept in memory. */
  memorySegments?: number;
}

interface Segment<T> {
  seq: number;
  path: string;
  fd: number | null;
  count: number;
  done: number;
  records: T[] | null;
}

const SEGMENT_FILE = /^segment-(\d{12})\.jsonl$/;
const LOCK_FILE = 'journal.pid';

export function openJournal<T>(dir: string, options: JournalOptions = {}): Journal<T> {
  const segmentRecords = options.segmentRecords ?? 4096;
  const memorySegments = options.memorySegments ?? 4;
  mkdirSync(dir, { recursive: true });
  const unlock = lockDir(dir);
  const segments: Segment<T>[] = [];
  let appendedTotal = 0;
  let committedTotal = 0;
  let pendingTotal = 0;

  // Segments left by an earlier run (crash or unflushed stop): replayed first, in order.
  const existing = readdirSync(dir)
    .map((name) => SEGMENT_FILE.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ seq: Number(match[1]), path: join(dir, match[0]) }))
    .sort((a, b) => a.seq - b.seq);
  for (const { seq, path } of existing) {
    const count = readSegment<T>(path).length;
    if (count === 0) {
      rmSync(path, { force: true });
      continue;
    }
    segments.push({ seq, path, fd: null, count, done: 0, records: null });
    pendingTotal += count;
  }
  let nextSeq = (existing[existing.length - 1]?.seq ?? 0) + 1;

  const openSegment = (): Segment<T> => {
    const seq = nextSeq++;
    const path = join(dir, `segment-${String(seq).padStart(12, '0')}.jsonl`);
    const inMemory = segments.filter((segment) => segment.records !== null).length < memorySegments;
    const segment: Segment<T> = { seq, path, fd: openSync(path, 'a'), count: 0, done: 0, records: inMemory ? [] : null };
    segments.push(segment);
    return segment;
  };

  const closeSegment = (segment: Segment<T>) => {
    if (segment.fd !== null) closeSync(segment.fd);
    segment.fd = null;
    if (segment.done === segment.count) {
      rmSync(segment.path, { force: true });
      segments.splice(segments.indexOf(segment), 1);
    }
  };

  let active: Segment<T> | null = null;

  return {
    append(record) {
      if (!active || active.count >= segmentRecords) {
        if (active) closeSegment(active);
        active = openSegment();
      }
      writeFully(active.fd!, Buffer.from(`${JSON.stringify(record)}\n`));
      active.count++;
      active.records?.push(record);
      appendedTotal++;
      pendingTotal++;
    },
    pending: () => pendingTotal,
    appended: () => appendedTotal,
    committed: () => committedTotal,
    memoryRecords: () => segments.reduce((sum, segment) => sum + (segment.records?.length ?? 0), 0),
    peek(max) {
      const segment = segments.find((s) => s.done < s.count);
      if (!segment) return null;
      // A disk-only segment is read back once its turn comes; it is the oldest, so at most one is.
      segment.records ??= readSegment<T>(segment.path, false).slice(0, segment.count);
      const start = segment.done;
      const records = segment.records.slice(start, Math.min(segment.count, start + max));
      return {
        records,
        commit() {
          if (segment.done !== start) throw new Error('journal: commit out of order');
          segment.done += records.length;
          committedTotal += records.length;
          pendingTotal -= records.length;
          if (segment.done === segment.count && segment.fd === null) closeSegment(segment);
        },
      };
    },
    close() {
      if (active) closeSegment(active);
      active = null;
      unlock();
    },
  };
}

/** Parses a segment; a torn last line (the process died inside a write) is skipped. */
function readSegment<T>(path: string, report = true): T[] {
  const records: T[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      if (report) console.error(`journal: skipping an unreadable line in ${path}`);
    }
  }
  return records;
}

function writeFully(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

export class JournalBusy extends Error {}

/** One process per journal directory: two writers would replay and delete each other's segments. */
const heldHere = new Set<string>();

function lockDir(dir: string): () => void {
  const file = join(dir, LOCK_FILE);
  if (heldHere.has(file)) throw new JournalBusy(`the click journal in ${dir} is already open in this process`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(file);
      return () => {
        heldHere.delete(file);
        rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8').trim());
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new JournalBusy(`the click journal in ${dir} is held by a running process (pid ${holder}); give each node its own DATA_DIR`);
      }
      rmSync(file, { force: true }); // left behind by a process that died
    }
  }
  throw new JournalBusy(`could not lock the click journal in ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
