import type { Queryable } from '../db/db';
import type { KeptRange } from './kept-range';
import { keepCohortActivity, keepCohortRevenue } from './retained-cohorts.repo';
import { keepClicks, keepRevenue } from './retained-totals.repo';

export type KeepTotals = (tx: Queryable, range: KeptRange) => Promise<void>;

/**
 * What is kept of each table's rows before they go (docs/data-lifecycle.md, "Retention"): the pivot's
 * clicks and revenue (retained_totals), the cohort report's activity and revenue
 * (retained_cohorts). A table with none (impressions, beacons, reports) goes whole.
 */
export const KEEP_TOTALS: Partial<Record<string, readonly KeepTotals[]>> = {
  clicks: [keepClicks],
  events: [keepRevenue, keepCohortRevenue, keepCohortActivity],
};
