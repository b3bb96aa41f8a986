import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { runBun } from '../support/process';
import { eventually } from '../support/wait';

/** Whether `pid` is a process that still runs (a zombie waiting to be reaped does not). */
const runs = (pid: number): boolean => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

// A test run must not leave a server behind: one that a failed setup never stopped ran on for
// the rest of the run and after it, holding its port, its memory and its Postgres connections.
test('a server whose test failed before stopping it is killed when the test run ends', async () => {
  const run = await runBun(['test', './test/e2e/fixtures/leaves-a-server.ts'], { TMPDIR: process.env.TMPDIR ?? '/tmp' });
  const output = run.stdout + run.stderr;
  const pid = Number(/left running: pid (\d+)/.exec(output)?.[1] ?? 0);
  try {
    expect(pid).toBeGreaterThan(0);
    expect(run.code).not.toBe(0);
    expect(output).toContain('setup failed after its server started');
    expect(output).toContain('test run: killed 1 server(s) a test left running');
    await eventually(() => !runs(pid), { timeoutMs: 10_000 });
  } finally {
    if (pid > 0 && runs(pid)) process.kill(pid, 'SIGKILL');
  }
}, 60_000);
