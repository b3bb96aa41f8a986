import type { Mirror } from '../../analytics/mirror/mirror';
import type { Queryable } from '../../db/db';
import { pagedCsv, type CsvCell } from '../../shared/csv';
import type { Clock } from '../../shared/ids';
import { EXPORT_COLUMNS } from './export.model';
import { selectCampaignNames } from '../../campaigns/campaigns.repo';
import { selectInvalidIps, type InvalidIpRow } from './export.repo';
import { orderReasons } from '../../tracking/risk/risk-signals';
import { selectInvalidThreshold } from '../settings.repo';

export interface ExportDeps {
  db: Queryable;
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
  clock: Clock;
}

const DAY_MS = 86_400_000;
/** Rows per mirror read: the response streams page by page, so memory stays flat for any window. */
export const EXPORT_PAGE_ROWS = 5_000;

/**
 * The invalid-click CSV of GET /api/protect/export, streamed page by page (src/shared/csv.ts):
 * the mirror is brought up to date first, so a click scored a moment ago is in it.
 */
export async function invalidClicksCsv(deps: ExportDeps, orgId: string, days: number, pageRows = EXPORT_PAGE_ROWS): Promise<ReadableStream<Uint8Array>> {
  await deps.mirror.catchUp();
  const threshold = await selectInvalidThreshold(deps.db, orgId);
  const since = new Date(deps.clock().getTime() - days * DAY_MS);
  return pagedCsv({
    header: EXPORT_COLUMNS,
    read: (after: InvalidIpRow | null) => selectInvalidIps(deps.mirror, { orgId, since, threshold, after, limit: pageRows }),
    records: (page) => invalidIpRecords(deps.db, orgId, page),
    pageRows,
  });
}

/**
 * The same invalid IPs as the CSV, as rows, for callers that rank them (the MCP `invalid_clicks`
 * tool): at most `maxRows`, `complete` false when there were more.
 */
export async function readInvalidIps(deps: ExportDeps, orgId: string, days: number, maxRows: number, pageRows = EXPORT_PAGE_ROWS) {
  await deps.mirror.catchUp();
  const threshold = await selectInvalidThreshold(deps.db, orgId);
  const since = new Date(deps.clock().getTime() - days * DAY_MS);
  const rows: InvalidIpRow[] = [];
  for (let after: InvalidIpRow | null = null; ; ) {
    const page = await selectInvalidIps(deps.mirror, { orgId, since, threshold, after, limit: Math.min(pageRows, maxRows + 1 - rows.length) });
    rows.push(...page);
    if (rows.length > maxRows) return { threshold, since, rows: rows.slice(0, maxRows), complete: false };
    if (page.length < pageRows) return { threshold, since, rows, complete: true };
    after = page[page.length - 1]!;
  }
}

async function invalidIpRecords(db: Queryable, orgId: string, rows: readonly InvalidIpRow[]): Promise<CsvCell[][]> {
  const names = await selectCampaignNames(db, orgId, [...new Set(rows.map((row) => row.campaign_id).filter((id) => id !== ''))]);
  return rows.map((row) => [
    row.ip,
    orderReasons(row.reasons ?? []).join('|'),
    Number(row.score),
    row.gclid ?? '',
    names.get(row.campaign_id) ?? row.campaign_id,
    Number(row.clicks),
    new Date(row.first_seen).toISOString(),
    new Date(row.last_seen).toISOString(),
  ]);
}
