/** A process's CPU time, read from /proc (Linux), and the wait for it to go quiet. */
import { existsSync, readFileSync } from 'node:fs';

/** CPU ticks (1/100 s) a process has used, from /proc (Linux). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Waits until a process is idle: under 5% of a core for half a second; resolves to the seconds
 * it took. The benches wait so for the warm-up's writes (journal drained, mirror caught up): a
 * service that has run for a while meets a burst this way, and its click writer has measured its
 * own rate by then (src/tracking/pipeline/pacing.ts). Tests wait so for what a node does as it
 * boots (its click writer threads loading their IP data) before they measure it.
 */
export async function settled(pid: number, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  if (!existsSync(`/proc/${pid}/stat`)) {
    // No /proc (not Linux): a fixed pause instead.
    await Bun.sleep(10_000);
    return (performance.now() - started) / 1000;
  }
  let last = cpuTicks(pid);
  for (let quietChecks = 0; quietChecks < 2 && performance.now() - started < timeoutMs; ) {
    await Bun.sleep(250);
    const now = cpuTicks(pid);
    quietChecks = now - last <= 1 ? quietChecks + 1 : 0;
    last = now;
  }
  return (performance.now() - started) / 1000;
}
