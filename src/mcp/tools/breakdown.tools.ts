/** The breakdown report as an MCP tool: the same query, service and answer as GET /api/v1/reports/breakdown. */
import { Type } from '@sinclair/typebox';
import { BREAKDOWN_DIMENSIONS, BreakdownAnswer, BreakdownQuery, parseBreakdownQuery } from '../../analytics/breakdown/breakdown.model';
import { breakdownReport } from '../../analytics/breakdown/breakdown.service';
import { amount, table } from '../render';
import { keyedTool } from '../tool';

/** A campaign or link by its label with its id beside it, any other key as itself. */
const KEY_COLUMNS: Record<string, { field: string; label?: string }> = {
  day: { field: 'day' }, campaign: { field: 'campaign_id', label: 'campaign' }, partner: { field: 'partner' }, link: { field: 'link_id', label: 'link' },
  country: { field: 'country' }, region: { field: 'region' }, os: { field: 'os' }, device: { field: 'device' }, platform: { field: 'platform' }, network: { field: 'network' },
};

export const breakdownReportTool = keyedTool({
  name: 'breakdown_report',
  title: 'Breakdown: clicks, installs, revenue, spend, CPI, ROAS, CVR by dimension',
  description:
    `One table over a period grouped by one or two of ${BREAKDOWN_DIMENSIONS.join(', ')} (group_by "country,os"; default day), ` +
    'optionally filtered by campaign_id, partner, app_id, country, platform. Per group: clicks (valid), invalid_clicks (scored invalid), ' +
    "installs, conversions, revenue and spend in the organization's reporting currency, cpi = spend / installs, roas = revenue / spend, " +
    'cvr = installs / clicks (null when undefined). Days are days of the reporting time zone; from and to are both included, at most 366 days. ' +
    'Amounts in a currency without an exchange rate are not converted: they are listed in unconverted and unconverted_spend. ' +
    'null under a dimension gathers what has none (spend has no country, installs no link).',
  input: Type.Object(BreakdownQuery.properties, { additionalProperties: false }),
  output: BreakdownAnswer,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: (args, deps, principal) => breakdownReport(deps, principal.orgId, parseBreakdownQuery(args)),
  render: renderBreakdown,
});

export function renderBreakdown(answer: BreakdownAnswer): string {
  type Row = Record<string, unknown> & BreakdownAnswer['total'];
  const name = (dimension: string) => (row: Row) => {
    const { field, label } = KEY_COLUMNS[dimension]!;
    const key = row[field] as string | null | undefined;
    if (key === null || key === undefined) return '(none)';
    const shown = label ? (row[label] as string | null) : null;
    return shown && shown !== key ? `${shown} (${key})` : key;
  };
  const rows: Row[] = [...answer.rows, { ...answer.total, [KEY_COLUMNS[answer.group_by[0]!]!.field]: '**total**' }];
  const unconverted = [['revenue', answer.unconverted], ['spend', answer.unconverted_spend]] as const;
  const notes = unconverted
    .filter(([, sums]) => Object.keys(sums).length > 0)
    .map(([what, sums]) => `Not converted (${what}, no exchange rate): ${Object.entries(sums).map(([currency, sum]) => `${currency} ${sum}`).join(', ')}`);
  return [
    `Breakdown by ${answer.group_by.join(' and ')} from ${answer.from} to ${answer.to} (${answer.timezone}, ${answer.currency})`,
    table(rows, [
      ...answer.group_by.map((dimension) => ({ title: dimension, value: name(dimension) })),
      { title: 'clicks', value: (row: Row) => row.clicks },
      { title: 'invalid', value: (row: Row) => row.invalid_clicks },
      { title: 'installs', value: (row: Row) => row.installs },
      { title: 'conversions', value: (row: Row) => row.conversions },
      { title: 'revenue', value: (row: Row) => amount(row.revenue) },
      { title: 'spend', value: (row: Row) => amount(row.spend) },
      { title: 'cpi', value: (row: Row) => amount(row.cpi) },
      { title: 'roas', value: (row: Row) => amount(row.roas) },
      { title: 'cvr', value: (row: Row) => amount(row.cvr) },
    ]),
    ...notes,
  ].join('\n\n');
}
