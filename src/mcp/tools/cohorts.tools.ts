/**
 * The cohort report as an MCP tool: the same query, service and answer as
 * GET /api/v1/reports/cohorts (docs/reports.md, "Cohorts"), rendered as a table.
 */
import { Type } from '@sinclair/typebox';
import { cohortQueryFields, CohortReportBody, type CohortReport, type CohortRow } from '../../analytics/cohorts/cohorts.model';
import { cohortReport } from '../../analytics/cohorts/cohorts.service';
import { amount, table } from '../render';
import { keyedTool } from '../tool';

export const cohortReportTool = keyedTool({
  name: 'cohort_report',
  title: 'Cohort report: retention, revenue (LTV) and ROAS by install day',
  description:
    "Follows the installs of each install day (in the organization's time zone) and group day by day, as GET /api/v1/reports/cohorts. " +
    'Per row and cohort day N (0 is the install day): installs of the cohorts that reached day N, retained (active on day N: any SDK event, ' +
    'or session_start with activity=sessions), retention, cumulative revenue through day N in the reporting currency (purchases, ad revenue, ' +
    'store payments less refunds), arpu, roas (revenue / spend of the cost imports), uninstalled. A day not reached yet is null. ' +
    'group_by: one or two of day, campaign, partner, country, platform, app, method, comma-separated. days: comma-separated, 0 to 180. ' +
    'Revenue in a currency without an exchange rate is in `unconverted`, never in the sums.',
  input: Type.Object(cohortQueryFields, { additionalProperties: false }),
  output: CohortReportBody,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: (args, deps, principal) => cohortReport(deps, principal.orgId, args),
  render: renderCohortReport,
});

const KEY_NAMES: Record<string, (row: CohortRow) => string | null | undefined> = {
  day: (row) => row.day,
  campaign: (row) => (row.campaign_id === null ? '(no campaign)' : row.campaign ?? row.campaign_id),
  partner: (row) => row.partner,
  country: (row) => row.country,
  platform: (row) => row.platform,
  app: (row) => (row.app_id === null ? null : row.app ?? row.app_id),
  method: (row) => row.method,
};

export function renderCohortReport(report: CohortReport): string {
  const rows: (CohortRow & { total?: true })[] = [...report.rows, { ...report.total, total: true }];
  const columns = [
    ...report.group_by.map((group) => ({ title: group, value: (row: (typeof rows)[number]) => (row.total ? '**total**' : (KEY_NAMES[group]?.(row) ?? '(none)')) })),
    { title: 'installs', value: (row: (typeof rows)[number]) => row.installs },
    { title: 'spend', value: (row: (typeof rows)[number]) => amount(row.spend) },
    ...report.days.flatMap((n, index) => [
      { title: `d${n} retention`, value: (row: (typeof rows)[number]) => amount(row.days[index]!.retention) },
      { title: `d${n} revenue`, value: (row: (typeof rows)[number]) => amount(row.days[index]!.revenue) },
      { title: `d${n} roas`, value: (row: (typeof rows)[number]) => amount(row.days[index]!.roas) },
    ]),
  ];
  const apart = Object.entries(report.unconverted).map(([currency, sum]) => `${sum} ${currency}`);
  const note = apart.length > 0 ? `\n\nNot converted (no exchange rate): ${apart.join(', ')}` : '';
  return `Cohorts installed ${report.from} to ${report.to} (${report.timezone}, amounts in ${report.currency})\n\n${table(rows, columns)}${note}`;
}
