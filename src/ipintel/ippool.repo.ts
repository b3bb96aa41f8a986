import type { Queryable } from '../db/db';

export interface IpClickIntelRow {
  clicks: number;
  invalid: number;
  last_seen: Date | null;
}

/**
 * One organization's clicks from one address (as the pipeline stores it): those since `since`,
 * the invalid ones among them, and the latest ever. Each part walks clicks_org_ip_idx. A click
 * of a verified crawler is labelled but not invalid.
 */
export async function selectIpClickIntel(db: Queryable, orgId: string, ip: string, since: Date): Promise<IpClickIntelRow> {
  const [row] = await db.query<{ clicks: number | string; invalid: number | string; last_seen: Date | null }>(
    `SELECT
       (SELECT count(*) FROM clicks WHERE org_id = $1 AND ip = $2 AND created_at >= ($3::text)::timestamptz) AS clicks,
       (SELECT count(*) FROM clicks WHERE org_id = $1 AND ip = $2 AND created_at >= ($3::text)::timestamptz
           AND drop_reason IS NOT NULL AND drop_reason <> 'verified_bot') AS invalid,
       (SELECT created_at FROM clicks WHERE org_id = $1 AND ip = $2 ORDER BY created_at DESC LIMIT 1) AS last_seen`,
    [orgId, ip, since.toISOString()],
  );
  return { clicks: Number(row?.clicks ?? 0), invalid: Number(row?.invalid ?? 0), last_seen: row?.last_seen ?? null };
}
