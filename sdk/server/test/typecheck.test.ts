import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { hmacSha256Hex } from '../../../src/shared/crypto/secrets';
import { generate } from '../scripts/generate';
import './sdk';

const PACKAGE = join(import.meta.dir, '..');

/**
 * The package's own check, with its own TypeScript 5 (sdk/server/node_modules): the types are
 * generated from the service as it is now, then tsc checks the sources, the generator and
 * types.check.ts against them.
 */
async function run(command: string[]): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn(command, { cwd: PACKAGE, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, output: stdout + stderr };
}

const TSC = join(PACKAGE, 'node_modules', '.bin', 'tsc');

test('sdk/server type-checks against the types generated from the service now', async () => {
  await generate();
  expect(await run([TSC, '--noEmit', '-p', 'tsconfig.test.json'])).toEqual({ code: 0, output: '' });
}, 180_000);

test('the built package runs under Node: a call through a 429, and the signature', async () => {
  expect(await run([TSC, '-p', 'tsconfig.build.json'])).toEqual({ code: 0, output: '' });
  let calls = 0;
  const service = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => (++calls === 1 ? Response.json({ error: 'rate_limited', retry_after: 1 }, { status: 429, headers: { 'retry-after': '1' } }) : Response.json({ data: [] })),
  });
  try {
    const { code, output } = await run(['node', join(import.meta.dir, 'node-client.mjs'), `http://127.0.0.1:${service.port}`]);
    expect({ code, answer: JSON.parse(output), calls }).toEqual({ code: 0, answer: { page: { data: [] }, signature: hmacSha256Hex('0123456789abcdef', 'body') }, calls: 2 });
  } finally {
    service.stop(true);
  }
}, 180_000);
