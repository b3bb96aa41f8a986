import type { Queryable } from '../../db/db';

export interface IpClickIntelRow {
  clicks: number;
  invalid: number;
  last_seen: Date | null;
  /** The highest risk score of those clicks; null without clicks. */
  risk_score: number | null;
}

/**
 * One organization's clicks from one address (as the pipeline stores it): those since `since`,
 * the invalid ones among them (score at the organization's threshold; a verified crawler never
 * is), their highest score, and the latest click ever. Each part walks clicks_org_ip_idx.
 */
export async function selectIpClickIntel(db: Queryable, orgId: string, ip: string, since: Date): Promise<IpClickIntelRow> {
  const [row] = await db.query<{ clicks: number | string; invalid: number | string; risk_score: number | null; last_seen: Date | null }>(
    `WITH recent AS (
       SELECT risk_score, is_bot FROM clicks WHERE org_id = $1 AND ip = $2 AND created_at >= ($3::text)::timestamptz
     )
     SELECT
       (SELECT count(*) FROM recent) AS clicks,
       (SELECT count(*) FROM recent WHERE NOT is_bot
           AND risk_score >= (SELECT invalid_threshold FROM organizations WHERE id = $1)) AS invalid,
       (SELECT max(risk_score) FROM recent) AS risk_score,
       (SELECT created_at FROM clicks WHERE org_id = $1 AND ip = $2 ORDER BY created_at DESC LIMIT 1) AS last_seen`,
    [orgId, ip, since.toISOString()],
  );
  return {
    clicks: Number(row?.clicks ?? 0),
    invalid: Number(row?.invalid ?? 0),
    last_seen: row?.last_seen ?? null,
    risk_score: row?.risk_score === null || row?.risk_score === undefined ? null : Number(row.risk_score),
  };
}
