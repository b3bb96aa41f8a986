import { afterAll } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Preloaded by `bun test` (bunfig.toml): the whole run's temporary files (data directories of
 * servers started by the tests, journals, PGlite stores, DuckDB files) go under one directory,
 * removed when the run ends, so a run leaves nothing behind in the OS temp dir. os.tmpdir() reads
 * TMPDIR when called, so every mkdtempSync(join(tmpdir(), ...)) in the suite lands here.
 * Processes a test spawns with `...process.env` inherit it too.
 */
const runDir = mkdtempSync(join(tmpdir(), 'svc-test-run-'));
process.env.TMPDIR = runDir;

afterAll(() => {
  try {
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    // A server a test left running may still be writing into it; the files are only litter then.
    console.error(`test run: could not remove ${runDir}:`, error);
  }
});
