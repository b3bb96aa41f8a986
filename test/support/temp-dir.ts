import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A new empty directory named `svc-<prefix>-…` in the OS temp dir, read when called: during
 * `bun test` that is the run's own directory (run-temp-dir.ts), removed when the run ends.
 */
export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), `svc-${prefix}-`));
