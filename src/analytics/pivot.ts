import type { Queryable } from '../db/db';
import { DEFAULT_REPORTING, selectReportingSettings } from '../settings/settings.repo';
import type { Mirror } from './mirror/mirror';
import { amountCurrencySql, conversion, ratesCte, unconvertedByCurrency } from './reporting/fx-sql';
import { dateDaySql, localDaySql, type OffsetInterval, zoneWindow } from './reporting/zone-days';

/** What the reports read: the mirror, and Postgres for what the mirror does not hold. */
export interface PivotDeps {
  db: Queryable;
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
}

/**
 * The campaigns report: one row per day and campaign with clicks, installs, conversions, revenue
 * and spend, read from the DuckDB mirror (docs/analytics.md, "Campaign pivot"), in the
 * organization's time zone and currency (docs/reports.md). The SQL is plain enough to run
 * unchanged on Postgres, which bench/pivot.ts does to compare the two.
 */
export interface PivotRow {
  /** YYYY-MM-DD, a day in the reporting time zone. */
  day: string;
  /** null: clicks of links without a campaign, organic installs, unattributed conversions. */
  campaign_id: string | null;
  campaign: string | null;
  clicks: number;
  installs: number;
  conversions: number;
  /** In the reporting currency: what could be converted. */
  revenue: number;
  spend: number;
  /** spend / installs; null without installs, or when some of the spend could not be converted. */
  cpi: number | null;
  /** revenue / spend; null without spend, or when some revenue or spend could not be converted. */
  roas: number | null;
  /** Revenue with no rate on or before its day, by currency; present only when there is some. */
  unconverted?: Record<string, number>;
  /** Spend with no rate on or before its day, by currency; present only when there is some. */
  unconverted_spend?: Record<string, number>;
}

export interface PivotQuery {
  orgId: string;
  /** YYYY-MM-DD, inclusive. */
  from: string;
  /** YYYY-MM-DD, inclusive. */
  to: string;
  /** IANA zone the days are days in; default UTC. */
  timezone?: string;
  /** ISO 4217 code amounts are converted into; default USD. An amount without a currency is in it. */
  currency?: string;
}

/** The pivot with what it is in, and the amounts that could not be converted, by currency. */
export interface PivotReport {
  timezone: string;
  currency: string;
  rows: PivotRow[];
  unconverted: Record<string, number>;
  unconverted_spend: Record<string, number>;
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

const UTC_OFFSETS: readonly OffsetInterval[] = [{ startMs: 0, offsetSeconds: 0 }];

/**
 * The pivot over a zone's offsets (zone-days.ts: the day of a row is worked out from its epoch
 * seconds, no zone looked up per row). $1 organization, $2 and $3 the window's first instant and
 * the instant after it (UTC text), $4 and $5 its first and last day, $6 the reporting currency.
 * Each source is grouped on its own, then the groups are added up, so no source multiplies
 * another's rows. Clicks an ingestion step dropped (bots, blocked) do not count; revenue is the
 * day's, by the campaign of the install that made it. Days past retention are read from
 * retained_totals, which holds what these counts were before the rows went (src/partitions).
 * Money is grouped by day, campaign and currency before it meets the rates (fx-sql.ts); an
 * answer row with a `currency` holds what could not be converted from it (its counts are counts
 * all the same), one without holds the rest.
 */
export function pivotSql(intervals: readonly OffsetInterval[]): string {
  const day = (column: string) => localDaySql(column, intervals);
  const fx = conversion('m', '$6');
  return `
WITH ${ratesCte('$1', '$6')},
money AS (
  SELECT day, campaign_id, currency, sum(conversions) AS conversions, sum(revenue) AS revenue, sum(spend) AS spend
    FROM (
      SELECT ${day('created_at')} AS day, campaign_id, ${amountCurrencySql('currency', '$6')} AS currency,
             count(*) AS conversions, coalesce(sum(value), 0) AS revenue, 0 AS spend
        FROM conversions
       WHERE org_id = $1 AND created_at >= CAST($2 AS TIMESTAMPTZ) AND created_at < CAST($3 AS TIMESTAMPTZ)
       GROUP BY 1, 2, 3
      UNION ALL
      SELECT ${day('e.occurred_at')}, i.campaign_id, ${amountCurrencySql('e.currency', '$6')}, 0, coalesce(sum(e.value), 0), 0
        FROM events e
        LEFT JOIN installs i ON i.install_key = e.install_key AND i.org_id = $1
       WHERE e.org_id = $1 AND e.name IN ('${REVENUE_EVENTS.join("', '")}')
         AND e.occurred_at >= CAST($2 AS TIMESTAMPTZ) AND e.occurred_at < CAST($3 AS TIMESTAMPTZ)
       GROUP BY 1, 2, 3
      UNION ALL
      SELECT ${day('bucket')}, campaign_id, ${amountCurrencySql('currency', '$6')}, 0, sum(value), 0
        FROM retained_totals
       WHERE org_id = $1 AND source = 'revenue' AND bucket >= CAST($2 AS TIMESTAMPTZ) AND bucket < CAST($3 AS TIMESTAMPTZ)
       GROUP BY 1, 2, 3
      UNION ALL
      SELECT ${dateDaySql('day')}, campaign_id, ${amountCurrencySql('currency', '$6')}, 0, 0, sum(spend)
        FROM costs
       WHERE org_id = $1 AND day >= CAST($4 AS DATE) AND day <= CAST($5 AS DATE)
       GROUP BY 1, 2, 3
    ) sources
   GROUP BY 1, 2, 3
),
facts AS (
  SELECT ${day('created_at')} AS day, campaign_id, CAST(NULL AS TEXT) AS currency,
         count(*) AS clicks, 0 AS installs, 0 AS conversions, 0 AS revenue, 0 AS spend
    FROM clicks
   WHERE org_id = $1 AND created_at >= CAST($2 AS TIMESTAMPTZ) AND created_at < CAST($3 AS TIMESTAMPTZ)
     AND drop_reason IS NULL
   GROUP BY 1, 2
  UNION ALL
  SELECT ${day('bucket')}, campaign_id, CAST(NULL AS TEXT), sum(count), 0, 0, 0, 0
    FROM retained_totals
   WHERE org_id = $1 AND source = 'clicks' AND bucket >= CAST($2 AS TIMESTAMPTZ) AND bucket < CAST($3 AS TIMESTAMPTZ)
   GROUP BY 1, 2
  UNION ALL
  SELECT ${day('installed_at')}, campaign_id, CAST(NULL AS TEXT), 0, count(*), 0, 0, 0
    FROM installs
   WHERE org_id = $1 AND installed_at >= CAST($2 AS TIMESTAMPTZ) AND installed_at < CAST($3 AS TIMESTAMPTZ)
   GROUP BY 1, 2
  UNION ALL
  SELECT m.day, m.campaign_id, CASE WHEN ${fx.unconverted} THEN m.currency END, 0, 0, m.conversions,
         CASE WHEN ${fx.unconverted} THEN m.revenue ELSE ${fx.converted('m.revenue')} END,
         CASE WHEN ${fx.unconverted} THEN m.spend ELSE ${fx.converted('m.spend')} END
    FROM money m
    ${fx.join}
)
SELECT DATE '1970-01-01' + CAST(f.day AS INTEGER) AS day, f.campaign_id, c.name AS campaign, f.currency,
       CAST(sum(f.clicks) AS BIGINT) AS clicks,
       CAST(sum(f.installs) AS BIGINT) AS installs,
       CAST(sum(f.conversions) AS BIGINT) AS conversions,
       CAST(sum(f.revenue) AS DOUBLE PRECISION) AS revenue,
       CAST(sum(f.spend) AS DOUBLE PRECISION) AS spend
  FROM facts f
  LEFT JOIN campaigns c ON c.id = f.campaign_id AND c.org_id = $1
 GROUP BY f.day, f.campaign_id, c.name, f.currency
 ORDER BY f.day, f.campaign_id NULLS FIRST, f.currency NULLS FIRST`;
}

/** The pivot in UTC, whatever the range: a zone without transitions gives one SQL text. */
export const PIVOT_SQL = pivotSql(UTC_OFFSETS);

/**
 * The statement for a query: the SQL over the zone's offsets in the window and its parameters;
 * throws a RangeError on a day that is not YYYY-MM-DD or a window that ends before it starts.
 */
export function pivotStatement(q: PivotQuery): { sql: string; params: string[] } {
  const timezone = q.timezone ?? DEFAULT_REPORTING.timezone;
  const window = zoneWindow(timezone, q.from, q.to);
  const sql = timezone === 'UTC' ? PIVOT_SQL : pivotSql(window.intervals);
  return { sql, params: [q.orgId, window.start.toISOString(), window.end.toISOString(), q.from, q.to, q.currency ?? DEFAULT_REPORTING.currency] };
}

/** The parameters of the pivot's SQL (PIVOT_SQL for a query in UTC). */
export function pivotParams(q: PivotQuery): string[] {
  return pivotStatement(q).params;
}

/** A row of the pivot's SQL as either store returns it (numbers, a Date or a text day) to a PivotRow. */
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
 * The SQL rows to report rows: a day and campaign's unconverted rows (those with a `currency`)
 * join its row, adding their counts and setting its amounts apart; a ratio over an amount that
 * is partly unconverted is null, since it would be wrong.
 */
export function assemblePivot(raws: readonly Record<string, unknown>[]): Pick<PivotReport, 'rows' | 'unconverted' | 'unconverted_spend'> {
  const rows: PivotRow[] = [];
  const byKey = new Map<string, PivotRow>();
  const revenueApart: { currency: unknown; amount: unknown }[] = [];
  const spendApart: { currency: unknown; amount: unknown }[] = [];
  for (const raw of raws) {
    const part = toPivotRow(raw);
    const key = `${part.day}|${part.campaign_id ?? ''}`;
    let row = byKey.get(key);
    if (!row) {
      row = { ...part, ...(raw.currency == null ? {} : { revenue: 0, spend: 0 }) };
      byKey.set(key, row);
      rows.push(row);
    } else {
      row.clicks += part.clicks;
      row.installs += part.installs;
      row.conversions += part.conversions;
      if (raw.currency == null) Object.assign(row, { revenue: part.revenue, spend: part.spend });
    }
    if (raw.currency == null) continue;
    if (part.revenue !== 0) (row.unconverted ??= {})[String(raw.currency)] = roundMoney(part.revenue);
    if (part.spend !== 0) (row.unconverted_spend ??= {})[String(raw.currency)] = roundMoney(part.spend);
    revenueApart.push({ currency: raw.currency, amount: part.revenue });
    spendApart.push({ currency: raw.currency, amount: part.spend });
  }
  for (const row of rows) {
    row.cpi = row.installs > 0 && !row.unconverted_spend ? row.spend / row.installs : null;
    row.roas = row.spend > 0 && !row.unconverted && !row.unconverted_spend ? row.revenue / row.spend : null;
  }
  return { rows, unconverted: unconvertedByCurrency(revenueApart), unconverted_spend: unconvertedByCurrency(spendApart) };
}

/**
 * The organization's pivot for the days `from` to `to` (inclusive, in the zone), oldest day
 * first and rows without a campaign first within a day. The mirror catches up first, so a cost
 * import or a conversion written a moment ago is in it.
 */
export async function campaignPivotReport(mirror: Pick<Mirror, 'query' | 'catchUp'>, q: PivotQuery): Promise<PivotReport> {
  const { sql, params } = pivotStatement(q);
  await mirror.catchUp();
  const assembled = assemblePivot(await mirror.query<Record<string, unknown>>(sql, params));
  return { timezone: q.timezone ?? DEFAULT_REPORTING.timezone, currency: q.currency ?? DEFAULT_REPORTING.currency, ...assembled };
}

/** The rows of campaignPivotReport. */
export async function campaignPivot(mirror: Pick<Mirror, 'query' | 'catchUp'>, q: PivotQuery): Promise<PivotRow[]> {
  return (await campaignPivotReport(mirror, q)).rows;
}

/** The pivot in the organization's own zone and currency (organizations.timezone, .currency). */
export async function organizationPivot(deps: PivotDeps, q: Pick<PivotQuery, 'orgId' | 'from' | 'to'>): Promise<PivotReport> {
  const settings = await selectReportingSettings(deps.db, q.orgId);
  return campaignPivotReport(deps.mirror, { ...q, ...settings });
}

export type PivotTotals = Omit<PivotRow, 'day' | 'campaign_id' | 'campaign'>;

/**
 * Per campaign over the whole range, ordered by spend then revenue (largest first), and the grand
 * total; the unconverted amounts are summed by currency beside them, and keep the ratios null.
 */
export function campaignTotals(rows: readonly PivotRow[]): { campaigns: Omit<PivotRow, 'day'>[]; total: PivotTotals } {
  const byCampaign = new Map<string | null, Omit<PivotRow, 'day'>>();
  for (const row of rows) {
    const sum = byCampaign.get(row.campaign_id) ?? { campaign_id: row.campaign_id, campaign: row.campaign, ...withRatios(ZERO) };
    byCampaign.set(row.campaign_id, { campaign_id: sum.campaign_id, campaign: sum.campaign, ...withRatios(add(sum, row)) });
  }
  const campaigns = [...byCampaign.values()].sort(
    (a, b) => b.spend - a.spend || b.revenue - a.revenue || (a.campaign_id ?? '\uffff').localeCompare(b.campaign_id ?? '\uffff'),
  );
  return { campaigns, total: withRatios(campaigns.reduce(add, ZERO)) };
}

type Counts = Pick<PivotTotals, 'clicks' | 'installs' | 'conversions' | 'revenue' | 'spend' | 'unconverted' | 'unconverted_spend'>;
const ZERO: Counts = { clicks: 0, installs: 0, conversions: 0, revenue: 0, spend: 0 };

/** Sums by currency, or undefined when neither side has any. */
function addApart(a: Record<string, number> | undefined, b: Record<string, number> | undefined): Record<string, number> | undefined {
  if (!a && !b) return undefined;
  const sums = unconvertedByCurrency([...Object.entries(a ?? {}), ...Object.entries(b ?? {})].map(([currency, amount]) => ({ currency, amount })));
  return Object.keys(sums).length > 0 ? sums : undefined;
}

const add = (a: Counts, b: Counts): Counts => ({
  clicks: a.clicks + b.clicks,
  installs: a.installs + b.installs,
  conversions: a.conversions + b.conversions,
  revenue: a.revenue + b.revenue,
  spend: a.spend + b.spend,
  unconverted: addApart(a.unconverted, b.unconverted),
  unconverted_spend: addApart(a.unconverted_spend, b.unconverted_spend),
});

/**
 * Counts with CPI and ROAS; a ratio with nothing to divide by is null, never 0 or infinity, and
 * so is one over an amount partly unconverted. The unconverted sums appear only when there are some.
 */
function withRatios({ clicks, installs, conversions, revenue, spend, unconverted, unconverted_spend }: Counts): PivotTotals {
  return {
    clicks,
    installs,
    conversions,
    revenue: roundMoney(revenue),
    spend: roundMoney(spend),
    cpi: installs > 0 && !unconverted_spend ? roundRatio(spend / installs) : null,
    roas: spend > 0 && !unconverted && !unconverted_spend ? roundRatio(revenue / spend) : null,
    ...(unconverted ? { unconverted } : {}),
    ...(unconverted_spend ? { unconverted_spend } : {}),
  };
}

/** Sums of decimal amounts as JS numbers collect binary noise (0.1 + 0.2); totals show 6 decimals at most. */
const roundMoney = (value: number) => Math.round(value * 1e6) / 1e6;
const roundRatio = (value: number) => Math.round(value * 1e4) / 1e4;
