/**
 * How many journaled records a click pipeline lets wait while redirects keep arriving before its
 * writer stops giving way: what it writes at full speed in FLUSH_BUDGET_MS, so a stop after a burst
 * still fits main.ts's deadline. Only full batches written while traffic is quiet count (the rate a
 * stop gets); one beside a burst runs slower and would shrink the limit (docs/tracking.md).
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
