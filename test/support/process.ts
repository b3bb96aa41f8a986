import { join } from 'node:path';

export const ROOT = join(import.meta.dir, '..', '..');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `bun <args>` from the project root with exactly `env` (plus PATH and HOME), so the
 * caller's DATABASE_URL or REDIS_URL never leaks in unless passed on purpose.
 */
export async function runBun(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<Finished> {
  const proc = Bun.spawn([process.execPath, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}
