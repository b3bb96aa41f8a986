import { parseBreakdownQuery, type BreakdownQuery } from '../../analytics/breakdown/breakdown.model';
import { breakdownReport } from '../../analytics/breakdown/breakdown.service';
import type { CohortQueryText } from '../../analytics/cohorts/cohorts.model';
import { cohortReport } from '../../analytics/cohorts/cohorts.service';
import type { Mirror } from '../../analytics/mirror/mirror';
import type { Queryable } from '../../db/db';
import { fieldError } from '../../http/errors';
import { selectLinkSlugs } from '../../links/links.repo';
import { organizationPivot, type PivotRow } from '../../analytics/pivot';
import { orderReasons } from '../../tracking/risk/risk-signals';
import { csvRecords, pagedCsv, type CsvCell } from '../../shared/csv';
import type { Clock } from '../../shared/ids';
import { breakdownCsvRecords } from './breakdown-csv';
import { cohortCsvRecords } from './cohort-csv';
import { CLICK_EXPORT_COLUMNS, CONVERSION_EXPORT_COLUMNS, PIVOT_EXPORT_COLUMNS, type ExportType } from './export.model';
import { selectClickPage, selectConversionPage, type ClickExportRow, type ConversionExportRow, type ExportPage } from './export.repo';

export interface DashboardExportDeps {
  /** The slugs of the clicks' links (links are not mirrored), the reporting zone and currency (the pivot). */
  db: Queryable;
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
  clock: Clock;
}

/** Rows per mirror read: the answer streams page by page, so memory stays flat for any window. */
export const EXPORT_PAGE_ROWS = 5_000;
const DAY_MS = 86_400_000;

function clickCells(row: ClickExportRow, slugs: ReadonlyMap<string, string>): CsvCell[] {
  const reasons = row.risk_reasons ? orderReasons(JSON.parse(row.risk_reasons) as string[]).join('|') : '';
  return [
    row.id, row.created_at.toISOString(), row.gclid, row.gbraid, row.wbraid, row.campaign_ext_id, row.ad_group_ext_id, row.creative_id,
    row.keyword, row.match_type, row.network, row.device, row.next_hop_url, row.transparent_param_present, row.force_transparent, row.is_bot,
    row.latency_ms, row.drop_reason, row.risk_score, reasons, row.route,
    row.country, row.region, row.os_family, row.device_type, row.link_id === null ? null : (slugs.get(row.link_id) ?? null), row.campaign_id,
  ];
}

/** A page of clicks as records, with the slugs of its links read in one statement. */
async function clickRecords(db: Queryable, orgId: string, rows: readonly ClickExportRow[]): Promise<CsvCell[][]> {
  const linkIds = [...new Set(rows.flatMap((row) => (row.link_id === null ? [] : [row.link_id])))];
  const slugs = await selectLinkSlugs(db, orgId, linkIds);
  return rows.map((row) => clickCells(row, slugs));
}

const conversionCells = (row: ConversionExportRow): CsvCell[] => [
  row.id, row.created_at.toISOString(), row.click_id, row.campaign_id, row.event_name, row.value, row.currency, row.order_id, row.gclid, row.source,
];

const pivotCells = (row: PivotRow): CsvCell[] => [
  row.day, row.campaign_id, row.campaign, row.clicks, row.installs, row.conversions, row.revenue, row.spend, row.cpi, row.roas,
];

/** `12.5 EUR; 3 GBP`: amounts by currency in one cell. */
const apartCell = (sums: Record<string, number> | undefined): CsvCell => Object.entries(sums ?? {}).map(([currency, sum]) => `${sum} ${currency}`).join('; ');

/**
 * The pivot's CSV in the organization's zone and currency. When some amount of the window had
 * no exchange rate, two last columns hold each row's unconverted revenue and spend; a window
 * without any keeps the columns it always had (docs/reports.md, "Exchange rates").
 */
async function pivotCsv(deps: DashboardExportDeps, orgId: string, request: { from: string; to: string }): Promise<string> {
  const report = await organizationPivot(deps, { orgId, from: request.from, to: request.to });
  const apart = Object.keys(report.unconverted).length > 0 || Object.keys(report.unconverted_spend).length > 0;
  if (!apart) return csvRecords([PIVOT_EXPORT_COLUMNS, ...report.rows.map(pivotCells)]);
  return csvRecords([
    [...PIVOT_EXPORT_COLUMNS, 'unconverted', 'unconverted_spend'],
    ...report.rows.map((row) => [...pivotCells(row), apartCell(row.unconverted), apartCell(row.unconverted_spend)]),
  ]);
}

export interface DashboardExport {
  filename: string;
  body: ReadableStream<Uint8Array>;
}

/**
 * GET /api/dashboard/export: the organization's clicks, conversions or campaign pivot for the
 * days `from` to `to` (both included; UTC days, the pivot's in the reporting zone), from the
 * mirror once it has caught up; or the cohort report of the installs of those days, or the
 * breakdown of those days (both in the reporting zone).
 */
export async function dashboardExport(
  deps: DashboardExportDeps,
  orgId: string,
  request: { type: ExportType; from: string; to: string; cohorts?: Omit<CohortQueryText, 'from' | 'to'> },
  pageRows = EXPORT_PAGE_ROWS,
): Promise<DashboardExport> {
  const filename = `${request.type}-${request.from}-${request.to}.csv`;
  if (request.type === 'cohorts') {
    const report = await cohortReport(deps, orgId, { ...request.cohorts, from: request.from, to: request.to });
    return { filename, body: new Blob([csvRecords(cohortCsvRecords(report))]).stream() };
  }
  if (request.type === 'breakdown') {
    const { group_by, campaign_id, partner, app_id, country, platform } = request.cohorts ?? {};
    // The breakdown's own query schema checks the country's form; the export's only its length.
    if (country !== undefined && !/^[A-Za-z]{2}$/.test(country)) throw fieldError('country', 'must be a two-letter country code');
    const query = parseBreakdownQuery({ from: request.from, to: request.to, group_by, campaign_id, partner, app_id, country, platform: platform as BreakdownQuery['platform'] });
    const report = await breakdownReport(deps, orgId, query);
    return { filename, body: new Blob([csvRecords(breakdownCsvRecords(report))]).stream() };
  }
  if (request.type === 'pivot') {
    return { filename, body: new Blob([await pivotCsv(deps, orgId, request)]).stream() };
  }
  await deps.mirror.catchUp();
  const window = { orgId, start: `${request.from}T00:00:00.000Z`, end: new Date(Date.parse(`${request.to}T00:00:00Z`) + DAY_MS).toISOString(), limit: pageRows };
  const page = (after: { cursor_at: string; id: string } | null): ExportPage => ({ ...window, after: after && { cursor_at: after.cursor_at, id: after.id } });
  const body =
    request.type === 'clicks'
      ? await pagedCsv({
          header: CLICK_EXPORT_COLUMNS,
          read: (after: ClickExportRow | null) => selectClickPage(deps.mirror, page(after)),
          records: (rows) => clickRecords(deps.db, orgId, rows),
          pageRows,
        })
      : await pagedCsv({
          header: CONVERSION_EXPORT_COLUMNS,
          read: (after: ConversionExportRow | null) => selectConversionPage(deps.mirror, page(after)),
          records: (rows) => rows.map(conversionCells),
          pageRows,
        });
  return { filename, body };
}
