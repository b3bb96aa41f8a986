/**
 * A journal's segment files on disk: their names, their creation full of zeros, the listing of
 * those an earlier run left for replay, and their deletion once released.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

const SEGMENT_FILE = /^segment-(\d{12})\.jsonl$/;
/** What a segment file is filled with before its first record, one write at a time. */
export const ZEROS = new Uint8Array(1024 * 1024);
export const NEWLINE = 0x0a;

export const segmentPath = (dir: string, seq: number) => join(dir, `segment-${String(seq).padStart(12, '0')}.jsonl`);

/** Whether `dir` holds a journal's segment files: only then has an earlier run left records to replay. */
export function holdsSegments(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).some((name) => SEGMENT_FILE.test(name));
}

/** A segment file an earlier run left: its written bytes and complete lines. */
export interface LeftSegment {
  seq: number;
  path: string;
  size: number;
  count: number;
}

/**
 * Segments left by an earlier run (a crash or an unflushed stop), oldest first, to be replayed
 * before anything new; one without a complete line is deleted. `lastSeq` counts the deleted too.
 */
export function leftSegments(dir: string): { segments: LeftSegment[]; lastSeq: number } {
  const existing = readdirSync(dir)
    .map((name) => SEGMENT_FILE.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ seq: Number(match[1]), path: join(dir, match[0]) }))
    .sort((a, b) => a.seq - b.seq);
  const segments: LeftSegment[] = [];
  for (const { seq, path } of existing) {
    const bytes = written(readFileSync(path));
    const count = countLines(bytes);
    if (count === 0) {
      rmSync(path, { force: true });
      continue;
    }
    segments.push({ seq, path, size: bytes.length, count });
  }
  return { segments, lastSeq: existing[existing.length - 1]?.seq ?? 0 };
}

/**
 * Creates a segment file of `bytes` zeros, or throws and leaves none. Zeros written now, not a
 * sparse file: a segment's blocks are taken before its first record, so an append overwrites
 * and never allocates, and a sync carries no metadata.
 */
export function createZeroFilled(path: string, bytes: number): void {
  const fd = openSync(path, 'wx');
  try {
    for (let at = 0; at < bytes; at += ZEROS.length) writeSync(fd, ZEROS, 0, Math.min(ZEROS.length, bytes - at));
  } catch (error) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  closeSync(fd);
}

/**
 * Deletions of released segments, one after another on the pool, never on the event loop: with
 * online discard an unlink waits for the device. A crash before one ends replays the segment,
 * and the inserts skip what is stored.
 */
export function serialDeletions() {
  let deleting: Promise<void> = Promise.resolve();
  return {
    delete(path: string) {
      deleting = deleting.then(() => rm(path, { force: true }).catch((error) => console.error('journal: deleting a released segment failed', error)));
    },
    /** Resolves once every deletion asked for so far has ended. */
    done: () => deleting,
  };
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
