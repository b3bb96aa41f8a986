/**
 * How a click pipeline's batcher paces itself beside the redirects: its share of the time, the
 * backlog limit at which it writes at full speed, and the rest after each batch. Every click
 * written beside a saturated loop is a redirect not answered; at the limit the batcher writes at
 * full speed, so a stop still fits its deadline (docs/click-pipeline.md, "Giving way to a burst").
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

/**
 * How many journaled records a click pipeline lets wait while redirects keep arriving before its
 * writer stops giving way: what it writes at full speed in FLUSH_BUDGET_MS, so a stop after a burst
 * still fits main.ts's deadline. Only full batches written while traffic is quiet count (the rate a
 * stop gets); one beside a burst runs slower and would shrink the limit (docs/click-pipeline.md, "Batcher").
 */
export interface BacklogLimit {
  /** Records at which the batcher writes at full speed. */
  current(): number;
  /** A full batch of `records`, written at full speed while traffic was quiet, took `ms`. */
  observe(records: number, ms: number): void;
}

/**
 * The share of main.ts's 25 s stop deadline a click pipeline's flush may take: the store closes
 * after it, and a rate measured while the node's other pipelines were idle beats a stop's, when
 * all flush at once.
 */
export const FLUSH_BUDGET_MS = 12_000;
/** Each measured batch weighs this much less in the estimate than the next: about the last 20 count. */
const DECAY = 0.95;
/**
 * The limit never falls below this: one slow measurement (the database busy with a long
 * report) must not send the writer to full speed beside every small burst.
 */
export const MIN_BACKLOG_LIMIT = 10_000;

/** CLICK_BACKLOG, when the operator sets it: the limit stays where it was put. */
export function fixedBacklogLimit(records: number): BacklogLimit {
  return { current: () => records, observe: () => {} };
}

export function measuredBacklogLimit(initial: number, budgetMs: number = FLUSH_BUDGET_MS): BacklogLimit {
  let records = 0;
  let ms = 0;
  let limit = initial;
  return {
    current: () => limit,
    observe(batchRecords, batchMs) {
      if (!(batchRecords > 0 && batchMs > 0)) return;
      // Decayed sums, not a mean of per-batch rates: a batch's weight is its size and time.
      records = records * DECAY + batchRecords;
      ms = ms * DECAY + batchMs;
      limit = Math.max(MIN_BACKLOG_LIMIT, Math.round((records / ms) * budgetMs));
    },
  };
}

/** No append for this long means traffic is quiet: the batcher then runs at full speed. */
const QUIET_AFTER_MS = 200;
/**
 * While giving way, the batcher looks at its share again this often, so a rest ends when
 * traffic stops or the backlog grows (a rest set at a small share would otherwise run on for
 * seconds after the burst).
 */
const REST_STEP_MS = 50;

export interface PacerDeps {
  backlog: BacklogLimit;
  loop: LoopMeter;
  /** Records journaled and not yet written. */
  pending: () => number;
  /** Whether the batcher must write at full speed whatever the traffic: a flush waits, or a stop. */
  urgent: () => boolean;
}

/** The batcher's pace: when the last record arrived, its share now, and the rests it takes. */
export class Pacer {
  private lastAppendAt = 0;
  private wakeRest: (() => void) | undefined;

  constructor(private readonly deps: PacerDeps) {}

  /** A record was journaled now. */
  noteAppend(): void {
    this.lastAppendAt = performance.now();
  }

  /** Whether no record had arrived for QUIET_AFTER_MS at `at` (a performance.now() reading). */
  quietAt(at: number): boolean {
    return at - this.lastAppendAt > QUIET_AFTER_MS;
  }

  /** The batcher's share of the time now: all of it unless clicks keep arriving and the backlog is short of the limit. */
  share(): number {
    if (this.deps.urgent() || this.quietAt(performance.now())) return 1;
    return writeShare(this.deps.pending() / this.deps.backlog.current(), this.deps.loop.busy());
  }

  /**
   * Before the next batch, rests for one that took `spentMs`, so the batcher keeps to its share
   * while traffic flows: `spentMs * (1 / share - 1)` at the share of the moment, looked at again
   * every REST_STEP_MS. A share of 0 rests until it is more.
   */
  async giveWay(spentMs: number): Promise<void> {
    const from = performance.now();
    for (let now = this.share(); now < 1; now = this.share()) {
      const restMs = now > 0 ? spentMs * (1 / now - 1) : Number.POSITIVE_INFINITY;
      const left = restMs - (performance.now() - from);
      if (left <= 0 || (await this.rest(Math.min(left, REST_STEP_MS)))) return;
    }
  }

  /** Cuts a rest short: a flush or a stop wants the batcher now. */
  wake(): void {
    this.wakeRest?.();
  }

  /** Waits `ms`; true when wake() cut the rest short. */
  private rest(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.wakeRest = () => {
        clearTimeout(timer);
        resolve(true);
      };
    }).finally(() => (this.wakeRest = undefined));
  }
}
