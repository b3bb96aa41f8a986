/**
 * The campaign pivot: one row per UTC day and campaign with clicks, installs, conversions,
 * revenue and spend, read from the DuckDB mirror (docs/reports.md, "Campaign pivot"). The
 * dashboard's CSV export and the MCP `campaign_report` read it.
 */
import { selectCampaignNames } from '../campaigns/campaigns.repo';
import type { Queryable } from '../db/db';
import type { Mirror } from './mirror';
import type { ReportRange } from './report-range';

export interface PivotDeps {
  db: Queryable;
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
}

/** The export's columns, in order. */
export const PIVOT_COLUMNS = ['day', 'campaign_id', 'campaign', 'clicks', 'installs', 'conversions', 'revenue', 'spend', 'cpi', 'roas'] as const;

export interface PivotTotals {
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

export interface PivotRow extends PivotTotals {
  day: string;
  /** null: activity of no campaign (organic installs, clicks of links without one). */
  campaign_id: string | null;
  campaign: string | null;
}

/** The SDK events whose value is revenue: in-app purchases and ad revenue (docs/sdk.md). */
export const REVENUE_EVENTS = ['purchase', 'ad_revenue'] as const;

const utcDay = (column: string) => `strftime(timezone('UTC', ${column}), '%Y-%m-%d')`;

/**
 * Clicks that count (not dropped as bot, invalid or blocked), installs by the day of their
 * attribution, conversions by the day they were recorded, revenue events by the install's
 * campaign, spend from cost imports. $1 org, $2/$3 the instants, $4/$5 the days.
 */
const PIVOT_SQL = `
WITH
  clicked AS (
    SELECT ${utcDay('created_at')} AS day, campaign_id, count(*) AS clicks
      FROM clicks WHERE org_id = $1 AND created_at >= $2 AND created_at < $3 AND drop_reason IS NULL
     GROUP BY ALL),
  installed AS (
    SELECT ${utcDay('attributed_at')} AS day, campaign_id, count(*) AS installs
      FROM installs WHERE org_id = $1 AND attributed_at >= $2 AND attributed_at < $3
     GROUP BY ALL),
  earned AS (
    SELECT day, campaign_id, sum(conversions) AS conversions, sum(revenue) AS revenue FROM (
      SELECT ${utcDay('created_at')} AS day, campaign_id, 1 AS conversions, coalesce(value, 0) AS revenue
        FROM conversions WHERE org_id = $1 AND created_at >= $2 AND created_at < $3
      UNION ALL
      SELECT ${utcDay('e.occurred_at')}, i.campaign_id, 0, e.value
        FROM events e LEFT JOIN installs i ON i.id = e.install_id AND i.org_id = $1
       WHERE e.org_id = $1 AND e.name IN ('${REVENUE_EVENTS.join("', '")}') AND e.value IS NOT NULL
         AND e.occurred_at >= $2 AND e.occurred_at < $3)
     GROUP BY ALL),
  spent AS (
    SELECT strftime(day, '%Y-%m-%d') AS day, campaign_id, sum(spend) AS spend
      FROM costs WHERE org_id = $1 AND day >= CAST($4 AS DATE) AND day <= CAST($5 AS DATE)
     GROUP BY ALL),
  cells AS (
    SELECT day, campaign_id FROM clicked UNION SELECT day, campaign_id FROM installed
    UNION SELECT day, campaign_id FROM earned UNION SELECT day, campaign_id FROM spent)
SELECT k.day, k.campaign_id, coalesce(c.clicks, 0) AS clicks, coalesce(n.installs, 0) AS installs,
       coalesce(e.conversions, 0) AS conversions, coalesce(e.revenue, 0) AS revenue, coalesce(s.spend, 0) AS spend
  FROM cells k
  LEFT JOIN clicked c ON c.day = k.day AND c.campaign_id IS NOT DISTINCT FROM k.campaign_id
  LEFT JOIN installed n ON n.day = k.day AND n.campaign_id IS NOT DISTINCT FROM k.campaign_id
  LEFT JOIN earned e ON e.day = k.day AND e.campaign_id IS NOT DISTINCT FROM k.campaign_id
  LEFT JOIN spent s ON s.day = k.day AND s.campaign_id IS NOT DISTINCT FROM k.campaign_id
 ORDER BY k.day, k.campaign_id NULLS LAST`;

interface PivotCell {
  day: string;
  campaign_id: string | null;
  clicks: number;
  installs: number;
  conversions: number;
  revenue: number;
  spend: number;
}

/**
 * The organization's pivot over the range, the mirror brought up to date first so what was
 * written a moment ago is in it. Amounts are summed as reported: currencies are not converted.
 */
export async function campaignDayPivot(deps: PivotDeps, orgId: string, range: ReportRange): Promise<PivotRow[]> {
  await deps.mirror.catchUp();
  const cells = await deps.mirror.query<PivotCell>(PIVOT_SQL, [orgId, range.start, range.end, range.from, range.to]);
  const ids = [...new Set(cells.flatMap((cell) => (cell.campaign_id === null ? [] : [cell.campaign_id])))];
  const names = await selectCampaignNames(deps.db, orgId, ids);
  return cells.map((cell) => ({
    day: cell.day,
    campaign_id: cell.campaign_id,
    campaign: cell.campaign_id === null ? null : (names.get(cell.campaign_id) ?? null),
    ...withRatios(cell),
  }));
}

/** Per campaign over the whole range, ordered by spend then revenue (largest first), and the grand total. */
export function campaignTotals(rows: readonly PivotRow[]): { campaigns: Omit<PivotRow, 'day'>[]; total: PivotTotals } {
  const byCampaign = new Map<string | null, Omit<PivotRow, 'day'>>();
  for (const row of rows) {
    const sum = byCampaign.get(row.campaign_id) ?? { campaign_id: row.campaign_id, campaign: row.campaign, ...withRatios(ZERO) };
    byCampaign.set(row.campaign_id, { ...sum, ...withRatios(add(sum, row)) });
  }
  const campaigns = [...byCampaign.values()].sort((a, b) => b.spend - a.spend || b.revenue - a.revenue || (a.campaign_id ?? '\uffff').localeCompare(b.campaign_id ?? '\uffff'));
  return { campaigns, total: withRatios(campaigns.reduce(add, ZERO)) };
}

type Counts = Pick<PivotTotals, 'clicks' | 'installs' | 'conversions' | 'revenue' | 'spend'>;
const ZERO: Counts = { clicks: 0, installs: 0, conversions: 0, revenue: 0, spend: 0 };

function add(a: Counts, b: Counts): Counts {
  return { clicks: a.clicks + b.clicks, installs: a.installs + b.installs, conversions: a.conversions + b.conversions, revenue: a.revenue + b.revenue, spend: a.spend + b.spend };
}

/** Counts with CPI and ROAS; a ratio with nothing to divide by is null, never 0 or infinity. */
function withRatios(counts: Counts): PivotTotals {
  const { clicks, installs, conversions, revenue, spend } = counts;
  return {
    clicks: Number(clicks),
    installs: Number(installs),
    conversions: Number(conversions),
    revenue: roundMoney(Number(revenue)),
    spend: roundMoney(Number(spend)),
    cpi: installs > 0 ? roundRatio(Number(spend) / Number(installs)) : null,
    roas: spend > 0 ? roundRatio(Number(revenue) / Number(spend)) : null,
  };
}

/** Sums of decimal amounts as JS numbers collect binary noise (0.1 + 0.2); reports show 6 decimals at most. */
const roundMoney = (value: number) => Math.round(value * 1e6) / 1e6;
const roundRatio = (value: number) => Math.round(value * 1e4) / 1e4;
