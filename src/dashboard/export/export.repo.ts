import type { ConversionRow } from '../../conversions/conversions.model';
import type { ClickRecord } from '../../tracking/click.model';
import type { Mirror } from '../../analytics/mirror/mirror';

/**
 * Pages of one organization's clicks or conversions in a window, from the DuckDB mirror, oldest
 * first. Pages follow each other by (created_at, id); the cursor's time travels as DuckDB's own
 * text, so microseconds survive (a JS Date keeps milliseconds).
 */
export interface ExportPage {
  orgId: string;
  /** The window's first instant and the instant after it, ISO 8601. */
  start: string;
  end: string;
  /** The last row of the previous page. */
  after: { cursor_at: string; id: string } | null;
  limit: number;
}

/** A stored click as the mirror hands it back: JSON columns as text, the cursor's time as text. */
export type ClickExportRow = Pick<
  ClickRecord,
  | 'id' | 'gclid' | 'gbraid' | 'wbraid' | 'campaign_ext_id' | 'ad_group_ext_id' | 'creative_id' | 'keyword' | 'match_type'
  | 'network' | 'device' | 'next_hop_url' | 'transparent_param_present' | 'force_transparent' | 'is_bot' | 'latency_ms'
  | 'drop_reason' | 'risk_score' | 'country' | 'region' | 'os_family' | 'device_type' | 'link_id' | 'campaign_id'
> & {
  cursor_at: string;
  created_at: Date;
  /** JSON text. */
  risk_reasons: string | null;
  route: string | null;
};

/** A stored conversion as the export reads it, with the cursor's time as text. */
export type ConversionExportRow = Omit<ConversionRow, 'org_id' | 'matched'> & { cursor_at: string };

// Both bounds of the cursor condition are conjunctive, so DuckDB skips row groups before it.
const WINDOW_AFTER = `org_id = $1 AND created_at >= CAST($2 AS TIMESTAMPTZ) AND created_at < CAST($3 AS TIMESTAMPTZ)
   AND (created_at > CAST($2 AS TIMESTAMPTZ) OR id > $4)`;

const pageParams = (page: ExportPage) => [page.orgId, page.after?.cursor_at ?? page.start, page.end, page.after?.id ?? '', page.limit];

export function selectClickPage(mirror: Pick<Mirror, 'query'>, page: ExportPage): Promise<ClickExportRow[]> {
  return mirror.query<ClickExportRow>(
    `SELECT id, CAST(created_at AS VARCHAR) AS cursor_at, created_at, gclid, gbraid, wbraid, campaign_ext_id, ad_group_ext_id, creative_id,
            keyword, match_type, network, device, next_hop_url, transparent_param_present, force_transparent, is_bot, latency_ms,
            drop_reason, risk_score, CAST(risk_reasons AS VARCHAR) AS risk_reasons, CAST(route AS VARCHAR) AS route,
            country, region, os_family, device_type, link_id, campaign_id
       FROM clicks
      WHERE ${WINDOW_AFTER}
      ORDER BY created_at, id
      LIMIT $5`,
    pageParams(page),
  );
}

export function selectConversionPage(mirror: Pick<Mirror, 'query'>, page: ExportPage): Promise<ConversionExportRow[]> {
  return mirror.query<ConversionExportRow>(
    `SELECT id, CAST(created_at AS VARCHAR) AS cursor_at, created_at, click_id, campaign_id, event_name,
            CAST(value AS DOUBLE) AS value, currency, order_id, gclid, source
       FROM conversions
      WHERE ${WINDOW_AFTER}
      ORDER BY created_at, id
      LIMIT $5`,
    pageParams(page),
  );
}
