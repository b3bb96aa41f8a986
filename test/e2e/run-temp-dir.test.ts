import { expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

// The suite's servers, stores and journals must land in the run's own directory, which the
// preload (test/support/run-temp-dir.ts) removes when the run ends; without it every e2e server
// leaves tens of megabytes in the OS temp dir.
test('temporary directories of a test run are made inside the run directory that the run removes', () => {
  const runDir = tmpdir();
  expect(basename(runDir)).toStartWith('svc-test-run-');
  expect(process.env.TMPDIR).toBe(runDir);
  expect(dirname(mkdtempSync(join(tmpdir(), 'svc-e2e-')))).toBe(runDir);
});
