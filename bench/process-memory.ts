import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Resident memory of a process and its descendants, read from /proc (Linux): what a container's
 * memory limit counts. A sampler keeps the peak between its start and stop.
 */
export interface TreeMemory {
  /** Resident set (VmRSS), summed over the tree, in MB. */
  rssMb: number;
  /** Its anonymous part (RssAnon): the heaps, not the mapped files. */
  anonMb: number;
}

const KB_PER_MB = 1024;

/** A process's /proc/<pid>/status fields in kB (VmRSS, VmHWM, RssAnon ...); empty once it has exited. */
function statusKb(pid: number): Record<string, number> {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return {};
  }
  const fields: Record<string, number> = {};
  for (const match of text.matchAll(/^(\w+):\s+(\d+) kB$/gm)) fields[match[1]!] = Number(match[2]);
  return fields;
}

/** The pid and every descendant's, through each thread's `children` list. */
function tree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pids[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${pids[i]}/task/${task}/children`, 'utf8').trim();
        if (children) pids.push(...children.split(' ').map(Number));
      } catch {}
    }
  }
  return pids;
}

export const canReadMemory = (pid: number) => existsSync(`/proc/${pid}/status`);

export function treeMemory(pid: number): TreeMemory {
  let rss = 0;
  let anon = 0;
  for (const member of tree(pid)) {
    const status = statusKb(member);
    rss += status.VmRSS ?? 0;
    anon += status.RssAnon ?? 0;
  }
  return { rssMb: rss / KB_PER_MB, anonMb: anon / KB_PER_MB };
}

/**
 * Starts the root's VmHWM afresh (clear_refs 5, Linux 4.0 and later), so a peak is the measured
 * run's and not the boot's: a first start on a new store, where PGlite initialises its cluster,
 * reached 1.15 GB for a moment. Where the kernel refuses, the peak still counts the boot.
 */
function resetHighWaterMark(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {}
}

/**
 * Samples the tree every `everyMs` until stopped; the peak is the larger of the samples and the
 * root's own high-water mark (VmHWM), which the kernel keeps between samples.
 */
export function sampleMemory(pid: number, everyMs = 250): { stop(): { peakMb: number } } {
  resetHighWaterMark(pid);
  let peak = treeMemory(pid).rssMb;
  const timer = setInterval(() => (peak = Math.max(peak, treeMemory(pid).rssMb)), everyMs);
  return {
    stop() {
      clearInterval(timer);
      const hwm = (statusKb(pid).VmHWM ?? 0) / KB_PER_MB;
      return { peakMb: Math.max(peak, treeMemory(pid).rssMb, hwm) };
    },
  };
}
