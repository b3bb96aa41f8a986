import { afterAll } from 'bun:test';
import { rmSync } from 'node:fs';
import { killLeftoverServers } from './server';
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
  // A server a test left running would keep writing into the directory, and run on after the run.
  const leftovers = killLeftoverServers();
  if (leftovers.length > 0) console.error(`test run: killed ${leftovers.length} server(s) a test left running: ${leftovers.join(', ')}`);
  try {
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    // A process a test spawned may still be writing into it; the files are only litter then.
    console.error(`test run: could not remove ${runDir}:`, error);
  }
});
