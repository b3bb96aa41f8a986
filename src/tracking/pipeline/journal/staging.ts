import { NEWLINE } from './segment-files';

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

/** Where staged lines go: written at the end of the active segment (or thrown), then counted. */
export interface StagingOutput {
  write(bytes: Uint8Array, length: number): void;
  counted(records: number): void;
}

/**
 * The journal's outgoing buffer: lines are encoded into it, then written from it, one line at
 * once or a loop turn's staged lines in one write. Records keep their order in the file: a line
 * written at once goes after whatever is staged.
 */
export class Staging implements StagedAppends {
  /** Staged lines (UTF-8, each ending in '\n'), or one line about to be written; grown as needed. */
  private outgoing = Buffer.allocUnsafe(64 * 1024);
  private staged = 0;
  private stagedCount = 0;
  private depth = 0;
  private losses = 0;

  constructor(private readonly output: StagingOutput) {}

  /** Bytes staged and not yet written. */
  get stagedBytes(): number {
    return this.staged;
  }

  /** Whether appends are staged now (inside `stageWhile`). */
  get staging(): boolean {
    return this.depth > 0;
  }

  /** Stages one line; `bound` is at least its encoded length with its '\n'. */
  stage(json: string, bound: number): void {
    this.staged = this.encodeAt(json, bound, this.staged);
    this.stagedCount++;
  }

  /** Writes whatever is staged, then the line; throws when the line cannot be written. */
  writeLine(json: string, bound: number): void {
    this.writeStaged();
    const length = this.encodeAt(json, bound, 0); // may grow the buffer: read it after
    this.output.write(this.outgoing, length);
    this.output.counted(1);
  }

  writeStaged(): void {
    if (this.stagedCount === 0) return;
    const bytes = this.staged;
    const records = this.stagedCount;
    this.staged = 0;
    this.stagedCount = 0;
    try {
      this.output.write(this.outgoing, bytes);
      this.output.counted(records);
    } catch (error) {
      this.losses++;
      console.error(`journal: ${records} staged records could not be written; their answers say so`, error);
    }
  }

  stageWhile<R>(run: () => R): R {
    this.depth++;
    try {
      return run();
    } finally {
      this.depth--;
    }
  }

  stagedLosses(): number {
    return this.losses;
  }

  /** Encodes one line into the buffer at `at`; answers the offset after it. */
  private encodeAt(json: string, bound: number, at: number): number {
    if (this.outgoing.length < at + bound) {
      const grown = Buffer.allocUnsafe(Math.max(at + bound, this.outgoing.length * 2));
      this.outgoing.copy(grown, 0, 0, at);
      this.outgoing = grown;
    }
    const end = at + this.outgoing.write(json, at);
    this.outgoing[end] = NEWLINE;
    return end + 1;
  }
}
