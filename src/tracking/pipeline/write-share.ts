/**
 * How much of its time a click pipeline's batcher takes while redirects keep arriving. Every click
 * written beside a saturated loop is a redirect not answered, so a busy loop's batcher waits for
 * the backlog to fill, a quiet loop's writes as clicks come; at the backlog limit both write at
 * full speed, so a stop still fits its deadline (docs/tracking.md, "Giving way to a burst").
 */

/** The share of a loop that is not busy, with an empty backlog. */
export const BASE_SHARE = 0.1;
/** The fill below which the batcher of a busy loop writes nothing. */
export const BUSY_KNEE = 0.75;
/**
 * A loop that spent this fraction of the last readings on its own thread's work is busy: low
 * enough that two saturated loops sharing two cores count, high enough that light traffic does not.
 */
export const BUSY_LOOP = 0.35;

/** The batcher's share of the time, 0 to 1, at `fill` (backlog / limit) beside a loop `busy` (0 to 1). */
export function writeShare(fill: number, busy: number): number {
  const f = Math.min(1, Math.max(0, fill));
  if (!(busy >= BUSY_LOOP)) return BASE_SHARE + (1 - BASE_SHARE) * f * f;
  const over = Math.max(0, (f - BUSY_KNEE) / (1 - BUSY_KNEE));
  return over * over;
}

/** How busy the event loop this pipeline lives on is. */
export interface LoopMeter {
  /** Takes a reading; the pipeline calls it on its timer. */
  sample(): void;
  /** The fraction of the time between the last readings this thread spent on the CPU, 0 to 1. */
  busy(): number;
}

/**
 * Reads the calling thread's own CPU time, so a listener thread's pipeline measures that thread's
 * loop and not the process. Each reading is averaged with the one before, so one quiet moment in
 * a burst does not flip the rule.
 */
export function threadLoopMeter(cpuMicros: () => number = threadCpuMicros, now: () => number = () => performance.now()): LoopMeter {
  let lastCpu = cpuMicros();
  let lastAt = now();
  let busy = 0;
  return {
    sample() {
      const cpu = cpuMicros();
      const at = now();
      const wallMs = at - lastAt;
      if (wallMs <= 0) return;
      const fraction = Math.min(1, Math.max(0, (cpu - lastCpu) / 1000 / wallMs));
      busy = (busy + fraction) / 2;
      lastCpu = cpu;
      lastAt = at;
    },
    busy: () => busy,
  };
}

/** A loop that is never busy: for a writer that runs on the loop itself (the embedded store), whose own work would read as load. */
export const idleLoopMeter: LoopMeter = { sample: () => {}, busy: () => 0 };

function threadCpuMicros(): number {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
}
