/**
 * The breakdown report as one SQL statement that runs unchanged on DuckDB and Postgres
 * (docs/reports.md, "Breakdowns"). Each source (clicks, installs, conversions, revenue events,
 * costs) is grouped on its own by the asked dimensions, then the groups are added up, so no
 * source multiplies another's rows; amounts are converted after grouping by (day, currency).
 * Every expression is fixed SQL chosen by a checked dimension; every value is a parameter.
 */
import { REVENUE_EVENTS } from '../pivot';
import { amountCurrencySql, conversion, ratesCte } from '../reporting/fx-sql';
import { dateDaySql, dayOfNumber, localDaySql, type ZoneWindow } from '../reporting/zone-days';
import type { BreakdownDimension, BreakdownFilters } from './breakdown.model';

export interface BreakdownSqlInput {
  orgId: string;
  groupBy: readonly BreakdownDimension[];
  filters: BreakdownFilters;
  /** The report's days in the organization's zone (zoneWindow). */
  window: ZoneWindow;
  /** The reporting currency. */
  currency: string;
  /** The organization's invalid_threshold (docs/protect.md). */
  invalidThreshold: number;
}

/** k (clicks), i (installs), v (conversions), e (revenue events, with their install as i), s (costs). */
type Source = 'clicks' | 'installs' | 'conversions' | 'revenue' | 'costs';

/** An install's platform as the OS family a user agent names, and back (docs/reports.md, "Breakdowns"). */
const OS_OF_PLATFORM = `CASE i.platform WHEN 'ios' THEN 'iOS' WHEN 'android' THEN 'Android' WHEN 'windows' THEN 'Windows' WHEN 'macos' THEN 'Mac OS' END`;
const PLATFORM_OF_OS = `CASE k.os_family WHEN 'iOS' THEN 'ios' WHEN 'Android' THEN 'android' WHEN 'Windows' THEN 'windows' WHEN 'Mac OS' THEN 'macos' WHEN 'macOS' THEN 'macos' END`;
/** A click (alias k): the user agent's device type; without one, Google's ValueTrack {device} (m, t, c) spelled the same way. */
export const CLICK_DEVICE_SQL = `coalesce(k.device_type, CASE k.device WHEN 'm' THEN 'mobile' WHEN 't' THEN 'tablet' WHEN 'c' THEN 'desktop' ELSE k.device END)`;
const NONE = 'CAST(NULL AS TEXT)';

/** Which column or expression gives a dimension for a source; absent: the source does not have it (null). */
function keyOf(dimension: Exclude<BreakdownDimension, 'day'>, source: Source): string | undefined {
  const own = { clicks: 'k', installs: 'i', conversions: 'v', revenue: 'i', costs: 's' }[source];
  switch (dimension) {
    case 'campaign':
      return `${own}.campaign_id`;
    case 'partner':
      if (source === 'installs') return "CASE WHEN i.campaign_id IS NULL THEN 'organic' ELSE pc.partner END";
      if (source === 'revenue') return "CASE WHEN i.id IS NULL THEN NULL WHEN i.campaign_id IS NULL THEN 'organic' ELSE pc.partner END";
      return 'pc.partner';
    case 'link':
      return source === 'clicks' ? 'k.link_id' : undefined;
    case 'country':
    case 'region':
      return source === 'clicks' || source === 'installs' || source === 'revenue' ? `${own}.${dimension}` : undefined;
    case 'os':
      return source === 'clicks' ? 'k.os_family' : source === 'installs' || source === 'revenue' ? OS_OF_PLATFORM : undefined;
    case 'device':
      return source === 'clicks' ? CLICK_DEVICE_SQL : undefined;
    case 'platform':
      return source === 'clicks' ? PLATFORM_OF_OS : source === 'installs' || source === 'revenue' ? 'i.platform' : undefined;
    case 'network':
      return source === 'clicks' ? 'k.network' : undefined;
  }
}

/** Positional parameters: each value once, named by its `$n`. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The statement and its parameters. Its rows: `k0` (and `k1`) the group's keys (a day as days
 * since 1970-01-01), `uc` null, or the currency of amounts that had no rate (in
 * `unconverted_revenue`, `unconverted_spend`), and the sums of that group and currency.
 */
export function breakdownSql(input: BreakdownSqlInput): { sql: string; params: unknown[] } {
  const p = new Params();
  const org = p.add(input.orgId);
  const start = `CAST(${p.add(input.window.start.toISOString())} AS TIMESTAMPTZ)`;
  const end = `CAST(${p.add(input.window.end.toISOString())} AS TIMESTAMPTZ)`;
  const currency = `CAST(${p.add(input.currency)} AS TEXT)`;
  const threshold = `CAST(${p.add(input.invalidThreshold)} AS INTEGER)`;
  const { intervals } = input.window;
  const days: Record<Source, string> = {
    clicks: localDaySql('k.created_at', intervals),
    installs: localDaySql('i.installed_at', intervals),
    conversions: localDaySql('v.created_at', intervals),
    revenue: localDaySql('e.occurred_at', intervals),
    costs: dateDaySql('s.day'),
  };
  const keys = input.groupBy.map((_, index) => `k${index}`);
  const keysOf = (source: Source) =>
    input.groupBy.map((dimension, index) => `${dimension === 'day' ? days[source] : (keyOf(dimension, source) ?? NONE)} AS k${index}`).join(', ');
  const groupPositions = (extra: number) => Array.from({ length: keys.length + extra }, (_, index) => index + 1).join(', ');

  const f = input.filters;
  const values = {
    campaign: f.campaignId === undefined ? undefined : p.add(f.campaignId),
    partner: f.partner === undefined ? undefined : `CAST(${p.add(f.partner)} AS TEXT)`,
    app: f.appId === undefined ? undefined : p.add(f.appId),
    country: f.country === undefined ? undefined : p.add(f.country),
    platform: f.platform === undefined ? undefined : p.add(f.platform),
  };
  const campaignsWhere = (condition: string) => `(SELECT id FROM campaigns WHERE org_id = ${org} AND ${condition})`;
  /** The conditions of the filters on one source; undefined when a filter's dimension is one the source lacks. */
  const filtersOf = (source: Source): string[] | undefined => {
    const own = { clicks: 'k', installs: 'i', conversions: 'v', revenue: 'i', costs: 's' }[source];
    const installLike = source === 'installs' || source === 'revenue';
    const conditions: string[] = [];
    if (values.campaign) conditions.push(`${own}.campaign_id = ${values.campaign}`);
    if (values.partner) {
      const paid = `${own}.campaign_id IN ${campaignsWhere(`partner = ${values.partner}`)}`;
      if (!installLike) conditions.push(paid);
      else conditions.push(`${source === 'revenue' ? 'i.id IS NOT NULL AND ' : ''}(${paid} OR (i.campaign_id IS NULL AND ${values.partner} = 'organic'))`);
    }
    if (values.app) {
      if (source === 'installs') conditions.push(`i.app_id = ${values.app}`);
      else if (source === 'revenue') conditions.push(`e.app_id = ${values.app}`);
      else conditions.push(`${own}.campaign_id IN ${campaignsWhere(`app_id = ${values.app}`)}`);
    }
    for (const [dimension, value] of [['country', values.country], ['platform', values.platform]] as const) {
      if (!value) continue;
      const key = keyOf(dimension, source);
      if (!key) return undefined;
      conditions.push(`${key} = ${value}`);
    }
    return conditions;
  };
  const and = (conditions: string[]) => conditions.map((condition) => `\n     AND ${condition}`).join('');
  const partnerJoin = (column: string) => (input.groupBy.includes('partner') ? `\n    LEFT JOIN campaigns pc ON pc.id = ${column} AND pc.org_id = ${org}` : '');

  const money: string[] = [];
  const conversionFilters = filtersOf('conversions');
  if (conversionFilters) {
    money.push(`SELECT ${keysOf('conversions')}, ${days.conversions} AS day, ${amountCurrencySql('v.currency', currency)} AS currency,
         count(*) AS conversions, CAST(coalesce(sum(v.value), 0) AS DOUBLE PRECISION) AS revenue, CAST(0 AS DOUBLE PRECISION) AS spend
    FROM conversions v${partnerJoin('v.campaign_id')}
   WHERE v.org_id = ${org} AND v.created_at >= ${start} AND v.created_at < ${end}${and(conversionFilters)}
   GROUP BY ${groupPositions(2)}`);
  }
  money.push(`SELECT ${keysOf('revenue')}, ${days.revenue} AS day, ${amountCurrencySql('e.currency', currency)} AS currency,
         0 AS conversions, CAST(coalesce(sum(e.value), 0) AS DOUBLE PRECISION) AS revenue, CAST(0 AS DOUBLE PRECISION) AS spend
    FROM events e
    LEFT JOIN installs i ON i.install_key = e.install_key AND i.org_id = ${org}${partnerJoin('i.campaign_id')}
   WHERE e.org_id = ${org} AND e.name IN ('${REVENUE_EVENTS.join("', '")}')
     AND e.occurred_at >= ${start} AND e.occurred_at < ${end}${and(filtersOf('revenue')!)}
   GROUP BY ${groupPositions(2)}`);
  const costFilters = filtersOf('costs');
  if (costFilters) {
    money.push(`SELECT ${keysOf('costs')}, ${days.costs} AS day, ${amountCurrencySql('s.currency', currency)} AS currency,
         0 AS conversions, CAST(0 AS DOUBLE PRECISION) AS revenue, CAST(sum(s.spend) AS DOUBLE PRECISION) AS spend
    FROM costs s${partnerJoin('s.campaign_id')}
   WHERE s.org_id = ${org} AND s.day >= CAST(${p.add(dayOfNumber(input.window.fromDay))} AS DATE)
     AND s.day <= CAST(${p.add(dayOfNumber(input.window.toDay))} AS DATE)${and(costFilters)}
   GROUP BY ${groupPositions(2)}`);
  }

  const fx = conversion('m', currency);
  const list = keys.join(', ');
  const sql = `
WITH ${ratesCte(org, currency)},
money AS (
  ${money.join('\n  UNION ALL\n  ')}
),
facts AS (
  SELECT ${keysOf('clicks')}, ${NONE} AS uc,
         count(*) FILTER (WHERE k.drop_reason IS NULL) AS clicks,
         count(*) FILTER (WHERE k.risk_score >= ${threshold} AND NOT k.is_bot) AS invalid_clicks,
         0 AS installs, 0 AS conversions, CAST(0 AS DOUBLE PRECISION) AS revenue, CAST(0 AS DOUBLE PRECISION) AS spend,
         CAST(0 AS DOUBLE PRECISION) AS unconverted_revenue, CAST(0 AS DOUBLE PRECISION) AS unconverted_spend
    FROM clicks k${partnerJoin('k.campaign_id')}
   WHERE k.org_id = ${org} AND k.created_at >= ${start} AND k.created_at < ${end}${and(filtersOf('clicks')!)}
   GROUP BY ${groupPositions(0)}
  UNION ALL
  SELECT ${keysOf('installs')}, ${NONE}, 0, 0, count(*), 0, 0, 0, 0, 0
    FROM installs i${partnerJoin('i.campaign_id')}
   WHERE i.org_id = ${org} AND i.installed_at >= ${start} AND i.installed_at < ${end}${and(filtersOf('installs')!)}
   GROUP BY ${groupPositions(0)}
  UNION ALL
  SELECT ${keys.map((key) => `m.${key}`).join(', ')}, CASE WHEN ${fx.unconverted} THEN m.currency END, 0, 0, 0, m.conversions,
         CASE WHEN ${fx.unconverted} THEN 0 ELSE ${fx.converted('m.revenue')} END,
         CASE WHEN ${fx.unconverted} THEN 0 ELSE ${fx.converted('m.spend')} END,
         CASE WHEN ${fx.unconverted} THEN m.revenue ELSE 0 END,
         CASE WHEN ${fx.unconverted} THEN m.spend ELSE 0 END
    FROM money m
    ${fx.join}
)
SELECT ${list}, uc,
       CAST(sum(clicks) AS BIGINT) AS clicks, CAST(sum(invalid_clicks) AS BIGINT) AS invalid_clicks,
       CAST(sum(installs) AS BIGINT) AS installs, CAST(sum(conversions) AS BIGINT) AS conversions,
       CAST(sum(revenue) AS DOUBLE PRECISION) AS revenue, CAST(sum(spend) AS DOUBLE PRECISION) AS spend,
       CAST(sum(unconverted_revenue) AS DOUBLE PRECISION) AS unconverted_revenue, CAST(sum(unconverted_spend) AS DOUBLE PRECISION) AS unconverted_spend
  FROM facts
 GROUP BY ${list}, uc`;
  return { sql, params: p.values };
}
