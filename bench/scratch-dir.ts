import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every file a bench run makes lives under one temporary directory, removed when the run ends
 * (also on Ctrl-C): kept, a run's stores fill the disk, and their dirty pages are written back
 * during the next run's measurement.
 */
const root = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const removeRoot = () => rmSync(root, { recursive: true, force: true });
process.on('exit', removeRoot);
process.once('SIGINT', () => process.exit(130));

/** A new directory for one part of the run (a server's DATA_DIR, a load script). */
export function scratchDir(name: string): string {
  return mkdtempSync(join(root, `${name}-`));
}

/** Removes a part's directory as soon as it is done with, so its files cannot weigh on the next target. */
export function removeScratch(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
