/**
 * The breakdown report (docs/reports.md, "Breakdowns"): the organization's reporting zone and
 * currency and its invalid threshold from Postgres, the numbers from the DuckDB mirror once it has
 * caught up, the names of campaigns and slugs of links from Postgres, the total from the sums.
 */
import { selectCampaignNames } from '../../campaigns/campaigns.repo';
import { selectLinkSlugs } from '../../links/links.repo';
import { selectInvalidThreshold } from '../../protect/settings.repo';
import { selectReportingSettings } from '../../settings/settings.repo';
import type { PivotDeps } from '../pivot';
import { dayOfNumber, zoneWindow } from '../reporting/zone-days';
import { breakdownSql } from './breakdown-sql';
import type { BreakdownAnswer, BreakdownDimension, BreakdownRequest, BreakdownRow, BreakdownTotal } from './breakdown.model';

export type BreakdownDeps = PivotDeps;

/** The field of a row each dimension's key goes in. */
const KEY_FIELD: Record<BreakdownDimension, string> = {
  day: 'day', campaign: 'campaign_id', partner: 'partner', link: 'link_id', country: 'country', region: 'region', os: 'os', device: 'device', platform: 'platform', network: 'network',
};

export async function breakdownReport(deps: BreakdownDeps, orgId: string, request: BreakdownRequest): Promise<BreakdownAnswer> {
  const [settings, invalidThreshold] = await Promise.all([selectReportingSettings(deps.db, orgId), selectInvalidThreshold(deps.db, orgId)]);
  const window = zoneWindow(settings.timezone, request.from, request.to);
  const { sql, params } = breakdownSql({ orgId, groupBy: request.groupBy, filters: request.filters, window, currency: settings.currency, invalidThreshold });
  await deps.mirror.catchUp();
  const grouped = breakdownRows(await deps.mirror.query<Record<string, unknown>>(sql, params), request.groupBy);
  const rows = await labelled(deps, orgId, grouped.rows);
  const { total } = grouped;
  return {
    from: request.from,
    to: request.to,
    timezone: settings.timezone,
    currency: settings.currency,
    group_by: request.groupBy,
    rows,
    total,
    unconverted: total.unconverted,
    unconverted_spend: total.unconverted_spend,
  };
}

interface Sums {
  clicks: number;
  invalid_clicks: number;
  installs: number;
  conversions: number;
  revenue: number;
  spend: number;
  unconverted: Record<string, number>;
  unconverted_spend: Record<string, number>;
}

const zero = (): Sums => ({ clicks: 0, invalid_clicks: 0, installs: 0, conversions: 0, revenue: 0, spend: 0, unconverted: {}, unconverted_spend: {} });

function addTo(sums: Sums, more: Sums): void {
  for (const name of ['clicks', 'invalid_clicks', 'installs', 'conversions', 'revenue', 'spend'] as const) sums[name] += more[name];
  for (const name of ['unconverted', 'unconverted_spend'] as const) {
    for (const [currency, amount] of Object.entries(more[name])) sums[name][currency] = (sums[name][currency] ?? 0) + amount;
  }
}

/**
 * Sums with their ratios; a ratio with nothing to divide by is null, never 0 or infinity, and so
 * is one over an amount partly unconverted, as in every report (docs/reports.md, "Exchange
 * rates"): the known part alone would give a wrong ratio, not a smaller one.
 */
function withRatios(sums: Sums): BreakdownTotal {
  const revenueWhole = Object.values(sums.unconverted).every((amount) => amount === 0);
  const spendWhole = Object.values(sums.unconverted_spend).every((amount) => amount === 0);
  return {
    clicks: sums.clicks,
    invalid_clicks: sums.invalid_clicks,
    installs: sums.installs,
    conversions: sums.conversions,
    revenue: round(sums.revenue),
    spend: round(sums.spend),
    cpi: sums.installs > 0 && spendWhole ? round(sums.spend / sums.installs) : null,
    roas: sums.spend > 0 && revenueWhole && spendWhole ? round(sums.revenue / sums.spend) : null,
    cvr: sums.clicks > 0 ? round(sums.installs / sums.clicks) : null,
    unconverted: rounded(sums.unconverted),
    unconverted_spend: rounded(sums.unconverted_spend),
  };
}

/** Sums of decimal amounts as JS numbers collect binary noise (0.1 + 0.2): amounts and ratios show 6 decimals at most. */
const round = (value: number) => Math.round(value * 1e6) / 1e6;

function rounded(byCurrency: Record<string, number>): Record<string, number> {
  const entries = Object.entries(byCurrency).map(([currency, amount]) => [currency, round(amount)] as const);
  return Object.fromEntries(entries.filter(([, amount]) => amount !== 0).sort(([a], [b]) => a.localeCompare(b)));
}

type KeyedRow = { keys: Record<string, string | null>; sums: Sums };

/**
 * The statement's rows (from either store) as one row per group: the rows of a group's
 * unconverted currencies are added to it. Days first when grouped by day, then the biggest groups
 * (clicks, installs, revenue, spend), then the keys, null last; and the total of the groups' sums.
 */
export function breakdownRows(
  raw: readonly Record<string, unknown>[],
  groupBy: readonly BreakdownDimension[],
): { rows: (BreakdownTotal & Record<string, unknown>)[]; total: BreakdownTotal } {
  const groups = new Map<string, KeyedRow>();
  for (const row of raw) {
    const keys: Record<string, string | null> = {};
    groupBy.forEach((dimension, index) => {
      const key = row[`k${index}`];
      keys[KEY_FIELD[dimension]] = key === null || key === undefined ? null : dimension === 'day' ? dayOfNumber(Number(key)) : String(key);
    });
    const id = JSON.stringify(groupBy.map((dimension) => keys[KEY_FIELD[dimension]]));
    const group = groups.get(id) ?? { keys, sums: zero() };
    groups.set(id, group);
    const currency = row.uc === null || row.uc === undefined ? null : String(row.uc);
    addTo(group.sums, {
      clicks: Number(row.clicks),
      invalid_clicks: Number(row.invalid_clicks),
      installs: Number(row.installs),
      conversions: Number(row.conversions),
      revenue: Number(row.revenue),
      spend: Number(row.spend),
      unconverted: currency && Number(row.unconverted_revenue) !== 0 ? { [currency]: Number(row.unconverted_revenue) } : {},
      unconverted_spend: currency && Number(row.unconverted_spend) !== 0 ? { [currency]: Number(row.unconverted_spend) } : {},
    });
  }
  const fields = groupBy.map((dimension) => KEY_FIELD[dimension]);
  const byKeys = (a: KeyedRow, b: KeyedRow, onlyDay: boolean) => {
    for (const field of fields) {
      if ((field === 'day') !== onlyDay) continue;
      const x = a.keys[field] ?? null;
      const y = b.keys[field] ?? null;
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return x < y ? -1 : 1;
    }
    return 0;
  };
  const sorted = [...groups.values()].sort(
    (a, b) =>
      byKeys(a, b, true) ||
      b.sums.clicks - a.sums.clicks ||
      b.sums.installs - a.sums.installs ||
      b.sums.revenue - a.sums.revenue ||
      b.sums.spend - a.sums.spend ||
      byKeys(a, b, false),
  );
  const total = zero();
  for (const group of sorted) addTo(total, group.sums);
  return { rows: sorted.map((group) => ({ ...group.keys, ...withRatios(group.sums) })), total: withRatios(total) };
}

/** Campaign ids get the campaign's name beside them, link ids the link's slug. */
async function labelled(deps: BreakdownDeps, orgId: string, rows: (BreakdownTotal & Record<string, unknown>)[]): Promise<BreakdownRow[]> {
  const ids = (field: string) => [...new Set(rows.flatMap((row) => (typeof row[field] === 'string' ? [row[field] as string] : [])))];
  const hasCampaign = rows.some((row) => 'campaign_id' in row);
  const hasLink = rows.some((row) => 'link_id' in row);
  const [names, slugs] = await Promise.all([
    hasCampaign ? selectCampaignNames(deps.db, orgId, ids('campaign_id')) : new Map<string, string>(),
    hasLink ? selectLinkSlugs(deps.db, orgId, ids('link_id')) : new Map<string, string>(),
  ]);
  return rows.map((row) => {
    const { clicks, invalid_clicks, installs, conversions, revenue, spend, cpi, roas, cvr, unconverted, unconverted_spend, ...keys } = row;
    const labels: Record<string, string | null> = {};
    if ('campaign_id' in keys) labels.campaign = keys.campaign_id === null ? null : (names.get(keys.campaign_id as string) ?? null);
    if ('link_id' in keys) labels.link = keys.link_id === null ? null : (slugs.get(keys.link_id as string) ?? null);
    return { ...keys, ...labels, clicks, invalid_clicks, installs, conversions, revenue, spend, cpi, roas, cvr, unconverted, unconverted_spend } as BreakdownRow;
  });
}
