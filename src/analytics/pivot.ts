import type { Queryable } from '../db/db';
import type { Mirror } from './mirror/mirror';

/** What the reports read: the mirror, and Postgres for what the mirror does not hold. */
export interface PivotDeps {
  db: Queryable;
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
}

/**
 * The campaigns report: one row per UTC day and campaign with clicks, installs, conversions,
 * revenue and spend, read from the DuckDB mirror (docs/analytics.md, "Campaign pivot"). The SQL
 * is plain enough to run unchanged on Postgres, which bench/pivot.ts does to compare the two.
 */
export interface PivotRow {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** null: clicks of links without a campaign, organic installs, unattributed conversions. */
  campaign_id: string | null;
  campaign: string | null;
  clicks: number;
  installs: number;
  conversions: number;
  revenue: number;
  spend: number;
  /** spend / installs; null without installs. */
  cpi: number | null;
  /** revenue / spend; null without spend. */
  roas: number | null;
}

export interface PivotQuery {
  orgId: string;
  /** YYYY-MM-DD, inclusive. */
  from: string;
  /** YYYY-MM-DD, inclusive. */
  to: string;
}

/**
 * Events whose value is revenue: SDK purchases and ad revenue (docs/sdk.md), and the store
 * notifications' payments and refunds, a refund's value negative (docs/subscriptions.md).
 */
export const REVENUE_EVENTS = [
  'purchase', 'ad_revenue', 'subscribe', 'subscription_converted', 'subscription_renewed',
  'subscription_recovered', 'subscription_refunded', 'subscription_refund_reversed',
] as const;

/** The export's columns, in order. */
export const PIVOT_COLUMNS = ['day', 'campaign_id', 'campaign', 'clicks', 'installs', 'conversions', 'revenue', 'spend', 'cpi', 'roas'] as const;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A timestamp's UTC day as days since 1970-01-01, from the epoch seconds: no time zone is looked
 * up per row, a lookup that in DuckDB outweighs the rest of the scan (docs/performance-analytics.md, "bench:pivot").
 */
const dayNumber = (column: string) => `CAST(floor(EXTRACT(EPOCH FROM ${column}) / 86400) AS INTEGER)`;
const DAY_MS = 86_400_000;

/**
 * $1 organization, $2 and $3 the window's first instant and the instant after it (UTC text),
 * $4 and $5 its first and last day. Each source is grouped on its own, then the groups are
 * added up, so no source multiplies another's rows. Clicks an ingestion step dropped (bots,
 * blocked) do not count; revenue is the day's, by the campaign of the install that made it.
 */
export const PIVOT_SQL = `
WITH facts AS (
  SELECT ${dayNumber('created_at')} AS day, campaign_id,
         count(*) AS clicks, 0 AS installs, 0 AS conversions, 0 AS revenue, 0 AS spend
    FROM clicks
   WHERE org_id = $1 AND created_at >= CAST($2 AS TIMESTAMPTZ) AND created_at < CAST($3 AS TIMESTAMPTZ)
     AND drop_reason IS NULL
   GROUP BY 1, 2
  UNION ALL
  SELECT ${dayNumber('installed_at')}, campaign_id, 0, count(*), 0, 0, 0
    FROM installs
   WHERE org_id = $1 AND installed_at >= CAST($2 AS TIMESTAMPTZ) AND installed_at < CAST($3 AS TIMESTAMPTZ)
   GROUP BY 1, 2
  UNION ALL
  SELECT ${dayNumber('created_at')}, campaign_id, 0, 0, count(*), coalesce(sum(value), 0), 0
    FROM conversions
   WHERE org_id = $1 AND created_at >= CAST($2 AS TIMESTAMPTZ) AND created_at < CAST($3 AS TIMESTAMPTZ)
   GROUP BY 1, 2
  UNION ALL
  SELECT ${dayNumber('e.occurred_at')}, i.campaign_id, 0, 0, 0, coalesce(sum(e.value), 0), 0
    FROM events e
    LEFT JOIN installs i ON i.id = e.install_id AND i.org_id = $1
   WHERE e.org_id = $1 AND e.name IN ('${REVENUE_EVENTS.join("', '")}')
     AND e.occurred_at >= CAST($2 AS TIMESTAMPTZ) AND e.occurred_at < CAST($3 AS TIMESTAMPTZ)
   GROUP BY 1, 2
  UNION ALL
  SELECT CAST(day - DATE '1970-01-01' AS INTEGER), campaign_id, 0, 0, 0, 0, sum(spend)
    FROM costs
   WHERE org_id = $1 AND day >= CAST($4 AS DATE) AND day <= CAST($5 AS DATE)
   GROUP BY 1, 2
)
SELECT DATE '1970-01-01' + CAST(f.day AS INTEGER) AS day, f.campaign_id, c.name AS campaign,
       CAST(sum(f.clicks) AS BIGINT) AS clicks,
       CAST(sum(f.installs) AS BIGINT) AS installs,
       CAST(sum(f.conversions) AS BIGINT) AS conversions,
       CAST(sum(f.revenue) AS DOUBLE PRECISION) AS revenue,
       CAST(sum(f.spend) AS DOUBLE PRECISION) AS spend
  FROM facts f
  LEFT JOIN campaigns c ON c.id = f.campaign_id AND c.org_id = $1
 GROUP BY f.day, f.campaign_id, c.name
 ORDER BY f.day, f.campaign_id NULLS FIRST`;

/** The parameters of PIVOT_SQL for a window; throws on a day that is not YYYY-MM-DD or a window that ends before it starts. */
export function pivotParams(q: PivotQuery): string[] {
  const start = dayStart(q.from);
  const end = dayStart(q.to);
  if (end < start) throw new RangeError(`pivot window ends (${q.to}) before it starts (${q.from})`);
  return [q.orgId, new Date(start).toISOString(), new Date(end + DAY_MS).toISOString(), q.from, q.to];
}

function dayStart(day: string): number {
  const time = DAY.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== day) throw new RangeError(`not a day (YYYY-MM-DD): ${day}`);
  return time;
}

/** A row of PIVOT_SQL as either store returns it (numbers, a Date or a text day) to a PivotRow. */
export function toPivotRow(raw: Record<string, unknown>): PivotRow {
  const installs = Number(raw.installs);
  const revenue = Number(raw.revenue);
  const spend = Number(raw.spend);
  return {
    day: raw.day instanceof Date ? raw.day.toISOString().slice(0, 10) : String(raw.day).slice(0, 10),
    campaign_id: (raw.campaign_id as string | null) ?? null,
    campaign: (raw.campaign as string | null) ?? null,
    clicks: Number(raw.clicks),
    installs,
    conversions: Number(raw.conversions),
    revenue,
    spend,
    cpi: installs > 0 ? spend / installs : null,
    roas: spend > 0 ? revenue / spend : null,
  };
}

/**
 * The organization's pivot for the days `from` to `to` (inclusive, UTC), oldest day first and
 * rows without a campaign first within a day. The mirror catches up first, so a cost import or
 * a conversion written a moment ago is in it.
 */
export async function campaignPivot(mirror: Pick<Mirror, 'query' | 'catchUp'>, q: { orgId: string; from: string; to: string }): Promise<PivotRow[]> {
  const params = pivotParams(q);
  await mirror.catchUp();
  const rows = await mirror.query<Record<string, unknown>>(PIVOT_SQL, params);
  return rows.map(toPivotRow);
}

export type PivotTotals = Omit<PivotRow, 'day' | 'campaign_id' | 'campaign'>;

/** Per campaign over the whole range, ordered by spend then revenue (largest first), and the grand total. */
export function campaignTotals(rows: readonly PivotRow[]): { campaigns: Omit<PivotRow, 'day'>[]; total: PivotTotals } {
  const byCampaign = new Map<string | null, Omit<PivotRow, 'day'>>();
  for (const row of rows) {
    const sum = byCampaign.get(row.campaign_id) ?? { campaign_id: row.campaign_id, campaign: row.campaign, ...withRatios(ZERO) };
    byCampaign.set(row.campaign_id, { ...sum, ...withRatios(add(sum, row)) });
  }
  const campaigns = [...byCampaign.values()].sort(
    (a, b) => b.spend - a.spend || b.revenue - a.revenue || (a.campaign_id ?? '\uffff').localeCompare(b.campaign_id ?? '\uffff'),
  );
  return { campaigns, total: withRatios(campaigns.reduce(add, ZERO)) };
}

type Counts = Pick<PivotTotals, 'clicks' | 'installs' | 'conversions' | 'revenue' | 'spend'>;
const ZERO: Counts = { clicks: 0, installs: 0, conversions: 0, revenue: 0, spend: 0 };

const add = (a: Counts, b: Counts): Counts => ({
  clicks: a.clicks + b.clicks,
  installs: a.installs + b.installs,
  conversions: a.conversions + b.conversions,
  revenue: a.revenue + b.revenue,
  spend: a.spend + b.spend,
});

/** Counts with CPI and ROAS; a ratio with nothing to divide by is null, never 0 or infinity. */
function withRatios({ clicks, installs, conversions, revenue, spend }: Counts): PivotTotals {
  return {
    clicks,
    installs,
    conversions,
    revenue: roundMoney(revenue),
    spend: roundMoney(spend),
    cpi: installs > 0 ? roundRatio(spend / installs) : null,
    roas: spend > 0 ? roundRatio(revenue / spend) : null,
  };
}

/** Sums of decimal amounts as JS numbers collect binary noise (0.1 + 0.2); totals show 6 decimals at most. */
const roundMoney = (value: number) => Math.round(value * 1e6) / 1e6;
const roundRatio = (value: number) => Math.round(value * 1e4) / 1e4;
