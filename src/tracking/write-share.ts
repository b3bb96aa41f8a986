/**
 * How much of its time a click pipeline's batcher takes while redirects keep arriving
 * (click-pipeline.ts). Writing a click costs the machine a good part of what answering it costs
 * (enrichment on the writer thread, the COPY in Postgres), so while the event loop is saturated
 * every click written beside the burst is a redirect not answered. On the 2-core reference
 * machine, one loop saturated by the redirect bench answered about 55,000 to 62,000 redirects a
 * second with the batcher's tenth of the time and its ramp, and 68,000 to 73,000 with nothing
 * written during the burst; its p99 fell from 4.8 to 6 ms to 3.8 to 4.6 ms (docs/performance.md,
 * run 25). A loop with time to spare loses nothing to the writer, and fresh clicks serve
 * conversions (which wait for their click 1.5 s at most) and the analytics mirror.
 *
 * So the rule depends on the loop that answers the redirects:
 * - **Not busy** (steady traffic): a tenth of the time at least, growing with the square of the
 *   backlog's fill to all of it at the limit. Light traffic is written as it comes.
 * - **Busy** (a burst): nothing until the backlog is three quarters of its limit, then the
 *   square of the way from there to the limit. The burst is answered first; the journal on disk
 *   holds it. The limit already bounds what a stop must write (backlog-limit.ts), so waiting
 *   longer costs a stop nothing; the last quarter is a ramp so that a long burst meets the
 *   database's pace gradually, and a sustained one settles inside it.
 *
 * Either way the batcher writes at full speed at the backlog limit (what it writes in 12 s), so
 * a stop still writes everything inside its deadline.
 */

/** The share of a loop that is not busy, with an empty backlog. */
export const BASE_SHARE = 0.1;
/** The fill below which the batcher of a busy loop writes nothing. */
export const BUSY_KNEE = 0.75;
/**
 * A loop that spent this fraction of the last moments on its own thread's work is busy. One
 * saturated loop gets 0.8 to 0.9 of a core on the reference machine; two share two cores with
 * the load and get about half each; a loop answering a few thousand redirects a second, under
 * a tenth.
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
 * Reads the calling thread's own CPU time (`process.threadCpuUsage`, about 0.25 µs a call), so
 * a listener thread's pipeline measures that thread's loop and not the process. Each reading is
 * averaged with the one before, so one quiet moment in a burst does not flip the rule.
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
