import { closeSync, openSync } from 'node:fs';
import type { LeftSegment } from './segment-files';

/** One segment of the journal: where its records are, and how far they are read and committed. */
export interface Segment {
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

/** The journal's records counted over all its segments. */
export interface JournalCounts {
  /** Appended since the journal opened. */
  appended: number;
  committed: number;
  /** Appended or replayed, and not yet committed. */
  pending: number;
}

/** Writes bytes into a segment at a position and answers how many were written. */
export type WriteAt = (fd: number, bytes: Uint8Array, length: number, position: number) => number;

/** A segment an earlier run left: closed, nothing of it read yet. */
export function leftSegment({ seq, path, size, count }: LeftSegment): Segment {
  return { seq, path, fd: null, map: null, bytes: null, size, synced: 0, count, done: 0, doneOffset: 0, doneAt: 0, read: 0, readOffset: 0, closed: true };
}

/** Opens the zero-filled file at `path` as the active segment: written through its descriptor, read through a mapping. */
export function activeSegment(seq: number, path: string): Segment {
  const fd = openSync(path, 'r+');
  let map: Uint8Array;
  try {
    map = Bun.mmap(path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return { seq, path, fd, map, bytes: null, size: 0, synced: 0, count: 0, done: 0, doneOffset: 0, doneAt: 0, read: 0, readOffset: 0, closed: false };
}

/** Writes `length` bytes of `bytes` at the end of the active segment, or throws. */
export function writeInto(segment: Segment, writeAt: WriteAt, bytes: Uint8Array, length: number): void {
  // A short write is not counted and the next write goes over it (docs/click-pipeline.md, "Journal").
  if (writeAt(segment.fd!, bytes, length, segment.size) !== length) throw new Error('journal: a write came back short (disk full?)');
  segment.size += length;
}

/** Ends the segment's appends: no record is added to it after this. */
export function closeSegment(segment: Segment): void {
  segment.closed = true;
  if (segment.fd !== null) closeSync(segment.fd);
  segment.fd = null;
  segment.map = null; // unmapped when collected; the file is never truncated under a live mapping
}

/**
 * The segment's written bytes, to read records from. A closed segment is mapped once its turn
 * comes (the oldest, and the next one while a batch read ahead crosses into it): read into the
 * heap, a whole segment would hold the event loop.
 */
export function readableBytes(segment: Segment): Uint8Array {
  return segment.map ?? (segment.bytes ??= Bun.mmap(segment.path).subarray(0, segment.size));
}

/** Closed with every record committed: it waits for the store to make them durable, then is deleted. */
export const isSettled = (segment: Segment) => segment.closed && segment.done === segment.count;
