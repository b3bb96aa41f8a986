/**
 * The rows retention is about to remove: those of `partition` with keys in [lower, upper), a
 * whole partition or one batch of one. The summaries (keep-totals.ts) sum exactly these rows, in
 * the transaction that removes them.
 */
export interface KeptRange {
  partition: string;
  lower: string;
  upper: string;
}
