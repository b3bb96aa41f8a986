import { stringify } from 'csv-stringify/sync';
import type { Mirror } from '../../analytics/mirror';
import { campaignPivot, type PivotRow } from '../../analytics/pivot';
import { orderReasons } from '../../protect/risk-signals';
import type { Clock } from '../../shared/ids';
import { CLICK_EXPORT_COLUMNS, CONVERSION_EXPORT_COLUMNS, PIVOT_EXPORT_COLUMNS, type ExportType } from './export.model';
import { selectClickPage, selectConversionPage, type ClickExportRow, type ConversionExportRow, type ExportPage } from './export.repo';

export interface DashboardExportDeps {
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
  clock: Clock;
}

/** Rows per mirror read: the answer streams page by page, so memory stays flat for any window. */
export const EXPORT_PAGE_ROWS = 5_000;
const DAY_MS = 86_400_000;

type Cell = string | number | null;

/**
 * Text a spreadsheet would run as a formula (=, +, -, @, a tab or a carriage return first) gets
 * a leading apostrophe: click fields come from ad URLs anyone can write (docs/dashboard.md).
 */
export function safeText(value: string | null): string | null {
  return value !== null && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const bool = (value: boolean) => (value ? 'true' : 'false');

function clickCells(row: ClickExportRow): Cell[] {
  const reasons = row.risk_reasons ? orderReasons(JSON.parse(row.risk_reasons) as string[]).join('|') : '';
  return [
    row.id, row.created_at.toISOString(), safeText(row.gclid), safeText(row.gbraid), safeText(row.wbraid), safeText(row.campaign_ext_id),
    safeText(row.ad_group_ext_id), safeText(row.creative_id), safeText(row.keyword), safeText(row.match_type), safeText(row.network),
    safeText(row.device), safeText(row.next_hop_url), bool(row.transparent_param_present), bool(row.force_transparent), bool(row.is_bot),
    row.latency_ms, row.drop_reason, row.risk_score, reasons, row.route,
  ];
}

function conversionCells(row: ConversionExportRow): Cell[] {
  return [
    row.id, row.created_at.toISOString(), safeText(row.click_id), row.campaign_id, safeText(row.event_name), row.value, safeText(row.currency),
    safeText(row.order_id), safeText(row.gclid), row.source,
  ];
}

const pivotCells = (row: PivotRow): Cell[] => [
  row.day, row.campaign_id, safeText(row.campaign), row.clicks, row.installs, row.conversions, row.revenue, row.spend, row.cpi, row.roas,
];

const csv = (records: Cell[][]) => stringify(records, { record_delimiter: 'windows' });

/**
 * A CSV of pages: the header, then each page as it is read. The first page is read before the
 * answer starts, so a mirror that cannot answer gives an error status rather than a cut file.
 */
async function pagedCsv<R extends { cursor_at: string; id: string }>(
  header: readonly string[],
  read: (after: R | null) => Promise<R[]>,
  cells: (row: R) => Cell[],
  pageRows: number,
): Promise<ReadableStream<Uint8Array>> {
  let page = await read(null);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csv([[...header]])));
    },
    async pull(controller) {
      if (page.length === 0) return controller.close();
      controller.enqueue(encoder.encode(csv(page.map(cells))));
      page = page.length < pageRows ? [] : await read(page[page.length - 1]!);
    },
  });
}

export interface DashboardExport {
  filename: string;
  body: ReadableStream<Uint8Array>;
}

/**
 * GET /api/dashboard/export: the organization's clicks, conversions or campaign pivot for the
 * days `from` to `to` (UTC, both included), from the mirror once it has caught up.
 */
export async function dashboardExport(
  deps: DashboardExportDeps,
  orgId: string,
  request: { type: ExportType; from: string; to: string },
  pageRows = EXPORT_PAGE_ROWS,
): Promise<DashboardExport> {
  const filename = `${request.type}-${request.from}-${request.to}.csv`;
  if (request.type === 'pivot') {
    const rows = await campaignPivot(deps.mirror, { orgId, from: request.from, to: request.to });
    const text = csv([[...PIVOT_EXPORT_COLUMNS], ...rows.map(pivotCells)]);
    return { filename, body: new Blob([text]).stream() };
  }
  await deps.mirror.catchUp();
  const window = { orgId, start: `${request.from}T00:00:00.000Z`, end: new Date(Date.parse(`${request.to}T00:00:00Z`) + DAY_MS).toISOString(), limit: pageRows };
  const page = (after: { cursor_at: string; id: string } | null): ExportPage => ({ ...window, after: after && { cursor_at: after.cursor_at, id: after.id } });
  const body =
    request.type === 'clicks'
      ? await pagedCsv(CLICK_EXPORT_COLUMNS, (after) => selectClickPage(deps.mirror, page(after)), clickCells, pageRows)
      : await pagedCsv(CONVERSION_EXPORT_COLUMNS, (after) => selectConversionPage(deps.mirror, page(after)), conversionCells, pageRows);
  return { filename, body };
}
