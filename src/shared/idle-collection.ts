/**
 * Gives a burst's garbage back once the thread that made it is idle. JavaScriptCore collects when
 * a thread allocates, so a thread that goes quiet after a burst keeps the heap the burst grew
 * (a redirect burst left the embedded node at 1.2 GB resident for good; docs/performance.md,
 * "Burst and settled memory"), and the allocator hands back what a full collection frees. Here a
 * thread collects in full once it has been idle for a few readings, and only when it worked since
 * its last collection: never beside traffic (a full collection holds the thread for tens of
 * milliseconds), never twice for one burst. The rule reads work done, not the heap's size: the
 * engine's own collections keep the heap's live size low during a burst while the memory the
 * burst touched stays resident until a full collection lets the allocator return it.
 */

/** How often the thread's CPU time and heap are read. */
export const READING_MS = 1_000;
/** Readings in a row under IDLE_SHARE of the thread's time that make it idle. */
export const QUIET_READINGS = 3;
/** The share of a reading's wall time spent on the thread's CPU below which it is idle. */
export const IDLE_SHARE = 0.05;
/** CPU time the thread spent since its last collection that makes one worth it: a burst's, not a trickle's. */
export const WORK_MS = 1_000;

export interface IdleCollectionProbes {
  /** The calling thread's own CPU time, in microseconds. */
  cpuMicros(): number;
  now(): number;
  /** A full, synchronous collection. */
  collect(): void;
}

const threadProbes: IdleCollectionProbes = {
  cpuMicros() {
    const usage = process.threadCpuUsage();
    return usage.user + usage.system;
  },
  now: () => performance.now(),
  collect: () => Bun.gc(true),
};

/** The rule, reading by reading: `reading()` takes one and collects when it is time. */
export function idleCollector(probes: IdleCollectionProbes = threadProbes) {
  let lastCpu = probes.cpuMicros();
  let lastAt = probes.now();
  let quiet = 0;
  let workMicros = 0;
  let collections = 0;
  return {
    /** Takes a reading; true when it collected. */
    reading(): boolean {
      const cpu = probes.cpuMicros();
      const at = probes.now();
      const share = at > lastAt ? (cpu - lastCpu) / 1000 / (at - lastAt) : 1;
      workMicros += cpu - lastCpu;
      lastCpu = cpu;
      lastAt = at;
      quiet = share < IDLE_SHARE ? quiet + 1 : 0;
      if (quiet < QUIET_READINGS || workMicros < WORK_MS * 1000) return false;
      probes.collect();
      collections++;
      workMicros = 0;
      // The collection's own CPU time is not the thread's work.
      lastCpu = probes.cpuMicros();
      lastAt = probes.now();
      return true;
    },
    collections: () => collections,
  };
}

/** Starts the rule on the calling thread, on a timer that never keeps the thread alive. */
export function collectWhenIdle(probes?: IdleCollectionProbes): { stop(): void } {
  const collector = idleCollector(probes);
  const timer = setInterval(() => collector.reading(), READING_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
