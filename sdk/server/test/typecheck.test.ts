import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { generate } from '../scripts/generate';
import './sdk';

const PACKAGE = join(import.meta.dir, '..');

/**
 * The package's own check, with its own TypeScript 5 (sdk/server/node_modules): the types are
 * generated from the service as it is now, then tsc checks the sources, the generator and
 * types.check.ts against them.
 */
test('sdk/server type-checks against the types generated from the service now', async () => {
  await generate();
  const proc = Bun.spawn([join(PACKAGE, 'node_modules', '.bin', 'tsc'), '--noEmit', '-p', join(PACKAGE, 'tsconfig.test.json')], { cwd: PACKAGE, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, output: stdout + stderr }).toEqual({ code: 0, output: '' });
}, 180_000);
