import { afterAll } from 'bun:test';
import { rmSync } from 'node:fs';
import { tempDir } from './temp-dir';

/**
 * Preloaded by `bun test` (bunfig.toml): the whole run's temporary files (data directories of
 * servers started by the tests, journals, PGlite stores, DuckDB files) go under one directory,
 * removed when the run ends, so a run leaves nothing behind in the OS temp dir. os.tmpdir() reads
 * TMPDIR when called, so every tempDir() in the suite lands here; processes a test spawns with
 * `...process.env` inherit it too.
 */
const runDir = tempDir('test-run');
process.env.TMPDIR = runDir;

afterAll(() => {
  try {
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    // A server a test left running may still be writing into it; the files are only litter then.
    console.error(`test run: could not remove ${runDir}:`, error);
  }
});
