import { stringify } from 'csv-stringify/sync';
import type { Mirror } from '../analytics/mirror';
import type { Queryable } from '../db/db';
import type { Clock } from '../shared/ids';
import { EXPORT_COLUMNS } from './export.model';
import { selectCampaignNames } from '../campaigns/campaigns.repo';
import { selectInvalidIps, type InvalidIpRow } from './export.repo';
import { orderReasons } from './risk-signals';
import { selectInvalidThreshold } from './settings.repo';

export interface ExportDeps {
  db: Queryable;
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
  clock: Clock;
}

const DAY_MS = 86_400_000;
/** Rows per mirror read: the response streams page by page, so memory stays flat for any window. */
export const EXPORT_PAGE_ROWS = 5_000;

/**
 * The invalid-click CSV of GET /api/protect/export (RFC 4180, by csv-stringify): the mirror is
 * brought up to date first, so a click scored a moment ago is in it. The first page is read before
 * the answer starts, so a mirror that cannot answer gives an error status rather than a cut file.
 */
export async function invalidClicksCsv(deps: ExportDeps, orgId: string, days: number, pageRows = EXPORT_PAGE_ROWS): Promise<ReadableStream<Uint8Array>> {
  await deps.mirror.catchUp();
  const threshold = await selectInvalidThreshold(deps.db, orgId);
  const since = new Date(deps.clock().getTime() - days * DAY_MS);
  const read = (after: InvalidIpRow | null) => selectInvalidIps(deps.mirror, { orgId, since, threshold, after, limit: pageRows });
  let page = await read(null);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(stringify([EXPORT_COLUMNS], { record_delimiter: 'windows' })));
    },
    async pull(controller) {
      if (page.length === 0) return controller.close();
      controller.enqueue(encoder.encode(await csvRows(deps.db, orgId, page)));
      page = page.length < pageRows ? [] : await read(page[page.length - 1]!);
    },
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

async function csvRows(db: Queryable, orgId: string, rows: readonly InvalidIpRow[]): Promise<string> {
  const names = await selectCampaignNames(db, orgId, [...new Set(rows.map((row) => row.campaign_id).filter((id) => id !== ''))]);
  const records = rows.map((row) => [
    row.ip,
    orderReasons(row.reasons ?? []).join('|'),
    Number(row.score),
    row.gclid ?? '',
    names.get(row.campaign_id) ?? row.campaign_id,
    Number(row.clicks),
    new Date(row.first_seen).toISOString(),
    new Date(row.last_seen).toISOString(),
  ]);
  return stringify(records, { record_delimiter: 'windows' });
}
