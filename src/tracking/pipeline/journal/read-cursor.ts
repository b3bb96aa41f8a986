import { NEWLINE } from './segment-files';
import { isSettled, readableBytes, type JournalCounts, type Segment } from './segment';

export interface JournalBatch {
  bytes: Uint8Array;
  count: number;
  /** Marks the batch done; throws unless every batch read before it is committed. */
  commit(): void;
}

/**
 * Where the batcher reads the journal, ahead of what is committed, and the order of commits:
 * records are committed oldest first, as a prefix, so a segment's committed records are the
 * ones before `doneOffset` and a replay after a crash starts there.
 */
export class ReadCursor {
  constructor(
    private readonly segments: readonly Segment[],
    private readonly counts: JournalCounts,
  ) {}

  /**
   * The next records after those already read (at most `max`, from one segment): `count` UTF-8
   * JSON lines joined by '\n', a view valid until `commit`. Batches commit in the order read.
   */
  readLines(max: number): JournalBatch | null {
    const segment = this.segments.find((s) => s.read < s.count);
    if (!segment) return null;
    const source = readableBytes(segment);
    const start = segment.readOffset;
    let end = start;
    let lines = 0;
    while (lines < max && segment.read + lines < segment.count) {
      end = source.indexOf(NEWLINE, end) + 1;
      lines++;
    }
    segment.read += lines;
    segment.readOffset = end;
    return { bytes: source.subarray(start, end - 1), count: lines, commit: () => this.commit(segment, start, end, lines) };
  }

  /** Moves the read position back to the oldest uncommitted record, e.g. to retry after a failed write. */
  rewind(): void {
    for (const segment of this.segments) {
      segment.read = segment.done;
      segment.readOffset = segment.doneOffset;
    }
  }

  private commit(segment: Segment, start: number, end: number, lines: number): void {
    // Done records are a prefix: of the oldest segment with records not done, up to this batch.
    if (this.segments.find((s) => s.done < s.count) !== segment || segment.doneOffset !== start) throw new Error('journal: commit out of order');
    segment.done += lines;
    segment.doneOffset = end;
    this.counts.committed += lines;
    this.counts.pending -= lines;
    segment.doneAt = this.counts.committed;
    if (isSettled(segment)) segment.bytes = null; // kept on disk until released, no longer mapped
  }
}
