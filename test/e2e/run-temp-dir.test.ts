import { expect, test } from 'bun:test';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { tempDir } from '../support/temp-dir';

// The suite's servers, stores and journals must land in the run's own directory, which the
// preload (test/support/run-temp-dir.ts) removes when the run ends; without it every e2e server
// leaves tens of megabytes in the OS temp dir.
test('temporary directories of a test run are made inside the run directory that the run removes', () => {
  const runDir = tmpdir();
  expect(basename(runDir)).toStartWith('svc-test-run-');
  expect(process.env.TMPDIR).toBe(runDir);
  expect(dirname(tempDir('e2e'))).toBe(runDir);
});
