/**
 * Totals of clicks, conversions and installs over a day range, grouped one way, read from the
 * DuckDB mirror (docs/reports.md, "Summaries"). Each group's `label` names it for a reader: the
 * campaign's name, the link's slug.
 */
import { selectCampaignNames } from '../campaigns/campaigns.repo';
import { selectLinkSlugs } from '../links/links.repo';
import type { PivotDeps } from './pivot';
import type { ReportRange } from './report-range';

export const CLICK_GROUPS = ['day', 'campaign', 'country', 'link'] as const;
export const CONVERSION_GROUPS = ['day', 'campaign', 'event'] as const;
export const INSTALL_GROUPS = ['day', 'campaign', 'method'] as const;
export type ClickGroup = (typeof CLICK_GROUPS)[number];
export type ConversionGroup = (typeof CONVERSION_GROUPS)[number];
export type InstallGroup = (typeof INSTALL_GROUPS)[number];

const utcDay = (column: string) => `strftime(timezone('UTC', ${column}), '%Y-%m-%d')`;

/** The grouping expression of each choice: fixed SQL chosen by a checked enum, never built from input. */
const CLICK_KEYS: Record<ClickGroup, string> = { day: utcDay('created_at'), campaign: 'campaign_id', country: 'country', link: 'link_id' };
const CONVERSION_KEYS: Record<ConversionGroup, string> = { day: utcDay('created_at'), campaign: 'campaign_id', event: 'event_name' };
const INSTALL_KEYS: Record<InstallGroup, string> = { day: utcDay('attributed_at'), campaign: 'campaign_id', method: 'attribution_method' };

export interface ClickSummaryRow {
  /** The day, campaign id, country code or link id; null for clicks without one. */
  key: string | null;
  label: string | null;
  /** Clicks that count: not dropped as bot, invalid or blocked (docs/click-enrichment.md). */
  clicks: number;
  /** Clicks stored but dropped, with their reasons counted in the click export. */
  dropped: number;
}

export interface ConversionSummaryRow {
  key: string | null;
  label: string | null;
  conversions: number;
  /** Conversions matched to a click. */
  matched: number;
  /** Sum of the values as reported, currencies not converted. */
  value: number;
}

export interface InstallSummaryRow {
  key: string | null;
  label: string | null;
  installs: number;
  reattributions: number;
}

export interface Summary<Row> {
  rows: Row[];
  total: Omit<Row, 'key' | 'label'>;
}

export async function clicksSummary(deps: PivotDeps, orgId: string, range: ReportRange, group: ClickGroup): Promise<Summary<ClickSummaryRow>> {
  const rows = await grouped<Omit<ClickSummaryRow, 'label'>>(
    deps,
    `SELECT ${CLICK_KEYS[group]} AS key, count(*) FILTER (WHERE drop_reason IS NULL) AS clicks, count(*) FILTER (WHERE drop_reason IS NOT NULL) AS dropped
       FROM clicks WHERE org_id = $1 AND created_at >= $2 AND created_at < $3
      GROUP BY ALL ORDER BY ${orderOf(group)}`,
    orgId,
    range,
  );
  return summary(await labelled(deps, orgId, group, rows), ['clicks', 'dropped']);
}

export async function conversionsSummary(deps: PivotDeps, orgId: string, range: ReportRange, group: ConversionGroup): Promise<Summary<ConversionSummaryRow>> {
  const rows = await grouped<Omit<ConversionSummaryRow, 'label'>>(
    deps,
    `SELECT ${CONVERSION_KEYS[group]} AS key, count(*) AS conversions, count(*) FILTER (WHERE matched) AS matched, coalesce(sum(value), 0) AS value
       FROM conversions WHERE org_id = $1 AND created_at >= $2 AND created_at < $3
      GROUP BY ALL ORDER BY ${orderOf(group)}`,
    orgId,
    range,
  );
  return summary(await labelled(deps, orgId, group, rows), ['conversions', 'matched', 'value']);
}

/** Installs by the day of their (latest) attribution, with its campaign and method. */
export async function installsSummary(deps: PivotDeps, orgId: string, range: ReportRange, group: InstallGroup): Promise<Summary<InstallSummaryRow>> {
  const rows = await grouped<Omit<InstallSummaryRow, 'label'>>(
    deps,
    `SELECT ${INSTALL_KEYS[group]} AS key, count(*) AS installs, count(*) FILTER (WHERE is_reattribution) AS reattributions
       FROM installs WHERE org_id = $1 AND attributed_at >= $2 AND attributed_at < $3
      GROUP BY ALL ORDER BY ${orderOf(group)}`,
    orgId,
    range,
  );
  return summary(await labelled(deps, orgId, group, rows), ['installs', 'reattributions']);
}

/** Days in order; every other grouping largest first (the second column), then by key. */
function orderOf(group: string): string {
  return group === 'day' ? 'key' : '2 DESC, key NULLS LAST';
}

async function grouped<Row extends { key: string | null }>(deps: PivotDeps, sql: string, orgId: string, range: ReportRange): Promise<Row[]> {
  await deps.mirror.catchUp();
  return deps.mirror.query<Row>(sql, [orgId, range.start, range.end]);
}

/** Campaign groups get the campaign's name, link groups the link's slug; other keys are their own label. */
async function labelled<Row extends { key: string | null }>(deps: PivotDeps, orgId: string, group: string, rows: Row[]): Promise<(Row & { label: string | null })[]> {
  const ids = rows.flatMap((row) => (row.key === null ? [] : [row.key]));
  const names = group === 'campaign' ? await selectCampaignNames(deps.db, orgId, ids) : group === 'link' ? await selectLinkSlugs(deps.db, orgId, ids) : undefined;
  return rows.map((row) => ({ ...row, label: row.key === null ? null : names ? (names.get(row.key) ?? null) : row.key }));
}

/** Totals of the named columns; a sum of amounts is rounded to 6 decimals (0.1 + 0.2 is 0.3 here). */
function summary<Row extends { key: string | null; label: string | null }>(rows: Row[], counts: readonly (keyof Row & string)[]): Summary<Row> {
  const sum = (name: keyof Row) => Math.round(rows.reduce((total, row) => total + Number(row[name]), 0) * 1e6) / 1e6;
  return { rows, total: Object.fromEntries(counts.map((name) => [name, sum(name)])) as Summary<Row>['total'] };
}
