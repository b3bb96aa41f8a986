/**
 * The analytics tools: totals of clicks, conversions and installs over a day range, and the
 * campaign report (the dashboard's pivot summed per campaign). All read the DuckDB mirror.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { campaignTotals, organizationPivot, type PivotRow, type PivotTotals } from '../../analytics/pivot';
import { MAX_REPORT_DAYS, parseReportRange, ReportDay } from '../../analytics/report-range';
import {
  CLICK_GROUPS,
  clicksSummary,
  CONVERSION_GROUPS,
  conversionsSummary,
  INSTALL_GROUPS,
  installsSummary,
  type ClickSummaryRow,
  type ConversionSummaryRow,
  type InstallSummaryRow,
  type Summary,
} from '../../analytics/summaries';
import { amount, table } from '../render';
import { keyedTool } from '../tool';

const RANGE_NOTE = `Days are UTC calendar days; from and to are both included, at most ${MAX_REPORT_DAYS} days.`;
const range = { from: ReportDay('first day'), to: ReportDay('last day') };

const groupBy = <G extends string>(groups: readonly G[]) =>
  Type.Optional(Type.Union(groups.map((group) => Type.Literal(group)), { description: `one of ${groups.join(', ')} (default day)`, error: `must be one of ${groups.join(', ')}` }));

/** A summary's output: the range, the grouping, its rows and their total. */
function summaryOutput(counts: Record<string, TSchema>) {
  const key = { key: Type.Union([Type.String(), Type.Null()], { description: 'the day, id, country code, event or method; null for none' }), label: Type.Union([Type.String(), Type.Null()]) };
  return Type.Object({ from: Type.String(), to: Type.String(), group_by: Type.String(), rows: Type.Array(Type.Object({ ...key, ...counts })), total: Type.Object(counts) });
}

/** The rows as a table (a campaign or link shown by name, its id beside it) and the totals under it. */
function renderSummary<Row extends { key: string | null; label: string | null }>(counts: readonly (keyof Row & string)[]) {
  const name = (row: Row) => (row.key === null ? '(none)' : row.label && row.label !== row.key ? `${row.label} (${row.key})` : row.key);
  return (result: Summary<Row> & { group_by: string }) => {
    const rows = table(result.rows, [{ title: result.group_by, value: name }, ...counts.map((count) => ({ title: count, value: (row: Row) => Number(row[count]) }))]);
    const total = counts.map((count) => `${count} ${Number((result.total as Record<string, unknown>)[count])}`).join(', ');
    return `${rows}\n\nTotal: ${total}`;
  };
}

const Count = (description: string) => Type.Integer({ description });

export const clicksSummaryTool = keyedTool({
  name: 'clicks_summary',
  title: 'Clicks over a period',
  description:
    'Counts this organization\'s clicks (on /c and /l) per day, campaign, country or link. `clicks` are the clicks that count; `dropped` ' +
    `were stored but dropped as bots, invalid or blocked. ${RANGE_NOTE}`,
  input: Type.Object({ ...range, group_by: groupBy(CLICK_GROUPS) }, { additionalProperties: false }),
  output: summaryOutput({ clicks: Count('clicks that count'), dropped: Count('clicks dropped as bot, invalid or blocked') }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, deps, principal) {
    const period = parseReportRange(args);
    const group = args.group_by ?? 'day';
    return { from: period.from, to: period.to, group_by: group, ...(await clicksSummary(deps, principal.orgId, period, group)) };
  },
  render: renderSummary<ClickSummaryRow>(['clicks', 'dropped']),
});

export const conversionsSummaryTool = keyedTool({
  name: 'conversions_summary',
  title: 'Conversions over a period',
  description:
    'Counts this organization\'s conversions (postbacks and POST /api/v1/conversions) per day, campaign or event name, with how many ' +
    `matched a click and the sum of their values (as reported; currencies are not converted). ${RANGE_NOTE}`,
  input: Type.Object({ ...range, group_by: groupBy(CONVERSION_GROUPS) }, { additionalProperties: false }),
  output: summaryOutput({ conversions: Count('conversions recorded'), matched: Count('conversions matched to a click'), value: Type.Number({ description: 'sum of the values' }) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, deps, principal) {
    const period = parseReportRange(args);
    const group = args.group_by ?? 'day';
    return { from: period.from, to: period.to, group_by: group, ...(await conversionsSummary(deps, principal.orgId, period, group)) };
  },
  render: renderSummary<ConversionSummaryRow>(['conversions', 'matched', 'value']),
});

export const installsSummaryTool = keyedTool({
  name: 'installs_summary',
  title: 'App installs over a period',
  description:
    'Counts this organization\'s attributed app installs per day, campaign or attribution method (CLICK_ID, INSTALL_REFERRER, GCLID, ' +
    'DEFERRED_DEEPLINK, PROBABILISTIC, VIEW_THROUGH, HOUSEHOLD, SKAN, ORGANIC), by the day of their latest attribution; ' +
    `reattributions are installs attributed again after the app's re-attribution window. ${RANGE_NOTE}`,
  input: Type.Object({ ...range, group_by: groupBy(INSTALL_GROUPS) }, { additionalProperties: false }),
  output: summaryOutput({ installs: Count('installs attributed in the period'), reattributions: Count('of which re-attributions') }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, deps, principal) {
    const period = parseReportRange(args);
    const group = args.group_by ?? 'day';
    return { from: period.from, to: period.to, group_by: group, ...(await installsSummary(deps, principal.orgId, period, group)) };
  },
  render: renderSummary<InstallSummaryRow>(['installs', 'reattributions']),
});

const Money = (description: string) => Type.Number({ description });
const Ratio = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });
const totalsFields = {
  clicks: Count('clicks that count (not dropped)'),
  installs: Count('installs attributed to the campaign'),
  conversions: Count('conversions recorded for the campaign'),
  revenue: Money("conversion values plus purchase and ad revenue of its installs, in the organization's reporting currency"),
  spend: Money("spend from cost imports, in the organization's reporting currency"),
  cpi: Ratio('spend / installs; null without installs or when some spend could not be converted'),
  roas: Ratio('revenue / spend; null without spend or when some revenue or spend could not be converted'),
  unconverted: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'revenue with no exchange rate on or before its day, by currency, left out of revenue; absent when none' })),
  unconverted_spend: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'spend with no exchange rate on or before its day, by currency, left out of spend; absent when none' })),
};

export const campaignReportTool = keyedTool({
  name: 'campaign_report',
  title: 'Campaign report: spend, installs, revenue, CPI, ROAS',
  description:
    "The dashboard's campaign pivot summed per campaign over a period: clicks, installs, conversions, revenue (conversion values, " +
    'in-app purchases, ad revenue and store subscription payments less refunds of the installs), spend (cost imports), CPI = spend / installs and ROAS = revenue / spend ' +
    '(null when undefined). campaign_id null gathers what belongs to no campaign (organic installs, say). Days are days in the organization\'s ' +
    'reporting time zone and amounts are converted into its reporting currency (GET /api/v1/settings); an amount with no exchange rate on or ' +
    `before its day is left out and listed under unconverted (revenue) or unconverted_spend, by currency. ${RANGE_NOTE}`,
  input: Type.Object(range, { additionalProperties: false }),
  output: Type.Object({
    from: Type.String(),
    to: Type.String(),
    campaigns: Type.Array(Type.Object({ campaign_id: Type.Union([Type.String(), Type.Null()]), campaign: Type.Union([Type.String(), Type.Null()]), ...totalsFields })),
    total: Type.Object(totalsFields),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, deps, principal) {
    const period = parseReportRange(args);
    const report = await organizationPivot(deps, { orgId: principal.orgId, from: period.from, to: period.to });
    const { campaigns, total } = campaignTotals(report.rows);
    return { from: period.from, to: period.to, campaigns, total };
  },
  render: renderCampaignReport,
});

export function renderCampaignReport({ from, to, campaigns, total }: { from: string; to: string; campaigns: Omit<PivotRow, 'day'>[]; total: PivotTotals }): string {
  const rows: (Omit<PivotRow, 'day'> & { name: string })[] = [
    ...campaigns.map((row) => ({ ...row, name: row.campaign_id === null ? '(no campaign)' : (row.campaign ?? row.campaign_id) })),
    { ...total, campaign_id: null, campaign: null, name: '**total**' },
  ];
  const apart = (sums: Record<string, number> | undefined) => Object.entries(sums ?? {}).map(([currency, sum]) => `${amount(sum)} ${currency}`).join(', ');
  const notes = [
    total.unconverted ? `\n\nRevenue with no exchange rate, left out: ${apart(total.unconverted)}.` : '',
    total.unconverted_spend ? `\n\nSpend with no exchange rate, left out: ${apart(total.unconverted_spend)}.` : '',
  ].join('');
  return `Campaigns from ${from} to ${to}\n\n${table(rows, [
    { title: 'campaign', value: (row) => row.name },
    { title: 'clicks', value: (row) => row.clicks },
    { title: 'installs', value: (row) => row.installs },
    { title: 'conversions', value: (row) => row.conversions },
    { title: 'revenue', value: (row) => amount(row.revenue) },
    { title: 'spend', value: (row) => amount(row.spend) },
    { title: 'cpi', value: (row) => amount(row.cpi) },
    { title: 'roas', value: (row) => amount(row.roas) },
  ])}${notes}`;
}
