import { renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { ZEROS } from './segment-files';

const SPARE_FILE = 'next-segment.tmp';

/**
 * The next segment file, written full of zeros in the background while the active one fills, so
 * that opening a segment is a rename. Without a spare ready the journal fills one itself.
 */
export class SpareSegment {
  private readonly path: string;
  private ready = false;
  private preparing: Promise<void> | null = null;

  constructor(dir: string, private readonly segmentBytes: number, private readonly syncMs: number) {
    this.path = join(dir, SPARE_FILE);
    rmSync(this.path, { force: true }); // half written by an earlier run
  }

  /** Starts writing a spare unless one is ready or on its way. */
  prepare(): void {
    if (this.preparing || this.ready) return;
    this.preparing = this.fill()
      .then(() => void (this.ready = true))
      .catch((error) => console.error('journal: preparing the next segment failed', error))
      .finally(() => (this.preparing = null));
  }

  /** Renames the spare to `path` and answers true, or answers false when none is ready. */
  takeAs(path: string): boolean {
    if (!this.ready) return false;
    renameSync(this.path, path);
    this.ready = false;
    return true;
  }

  /** Waits for a spare on its way, then deletes whatever spare there is. */
  async close(): Promise<void> {
    await this.preparing;
    rmSync(this.path, { force: true });
  }

  private async fill(): Promise<void> {
    const file = await open(this.path, 'w');
    try {
      for (let at = 0; at < this.segmentBytes; at += ZEROS.length) await file.write(ZEROS, 0, Math.min(ZEROS.length, this.segmentBytes - at));
      // Its zeros reach the disk now, so that a timed sync of the segment carries only the records.
      if (this.syncMs > 0) await file.datasync();
    } finally {
      await file.close();
    }
  }
}
