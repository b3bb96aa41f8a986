import type { Mirror } from './mirror/mirror';

/** A link's counted clicks (not dropped as bot, invalid or blocked) over the two windows the links page shows. */
export interface LinkClickCounts {
  last24h: number;
  last30d: number;
}

const DAY_MS = 86_400_000;

/**
 * Both windows for a page of links in one read of the DuckDB mirror: one statement per page,
 * never one per row. The ids go in as one JSON list (the mirror binds scalars only). Links with
 * no click in 30 days are absent from the map.
 */
export async function selectLinkClickCounts(mirror: Pick<Mirror, 'query'>, orgId: string, linkIds: readonly string[], now: Date): Promise<Map<string, LinkClickCounts>> {
  if (linkIds.length === 0) return new Map();
  const rows = await mirror.query<{ link_id: string; last_24h: number; last_30d: number }>(
    `SELECT link_id, count(*) FILTER (WHERE created_at >= $3) AS last_24h, count(*) AS last_30d
       FROM clicks
      WHERE org_id = $1 AND created_at >= $2 AND created_at <= $4 AND drop_reason IS NULL
        AND list_contains(from_json($5, '["VARCHAR"]'), link_id)
      GROUP BY link_id`,
    [orgId, new Date(now.getTime() - 30 * DAY_MS), new Date(now.getTime() - DAY_MS), now, JSON.stringify(linkIds)],
  );
  return new Map(rows.map((row) => [row.link_id, { last24h: row.last_24h, last30d: row.last_30d }]));
}
