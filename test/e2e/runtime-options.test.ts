import '../support/slow-suite';
import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { startServer, type RunningServer } from '../support/server';

// Real server processes, read through /proc (Linux, as in CI).
setDefaultTimeout(180_000);
const BOOT_MS = 120_000;

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop('SIGTERM');
  server = undefined;
});

/** The environment the process runs with now (after any execve), as the kernel holds it. */
function environmentOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

/** JavaScriptCore's parallel-marking helper threads: one fewer than its markers. */
function markingHelpers(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).filter((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === 'HeapHelper').length;
}

describe('runtime options: the server applies them to itself, whatever started it', () => {
  test('started without them, the same process (same pid) runs with one collector marker', async () => {
    server = await startServer({}, { timeoutMs: BOOT_MS });
    const pid = server.proc.pid;
    expect(environmentOf(pid).BUN_JSC_numberOfGCMarkers).toBe('1');
    // The engine took the option: no helper thread to wake at each collection.
    expect(markingHelpers(pid)).toBe(0);
    // The process that was spawned is the one answering, and a signal to it stops the server.
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
  });

  test("an operator's own value is kept", async () => {
    server = await startServer({ BUN_JSC_numberOfGCMarkers: '2' }, { timeoutMs: BOOT_MS });
    expect(environmentOf(server.proc.pid).BUN_JSC_numberOfGCMarkers).toBe('2');
    expect(markingHelpers(server.proc.pid)).toBe(1);
  });
});
