import type { Mirror } from '../../analytics/mirror/mirror';

/** One invalid IP on one campaign, aggregated on the DuckDB mirror. */
export interface InvalidIpRow {
  ip: string;
  /** '' for clicks without a campaign. */
  campaign_id: string;
  score: number;
  clicks: number;
  first_seen: Date;
  last_seen: Date;
  gclid: string | null;
  reasons: string[];
}

export interface InvalidIpPage {
  orgId: string;
  since: Date;
  threshold: number;
  /** The last row of the previous page: the next page starts after it. */
  after: { ip: string; campaign_id: string } | null;
  limit: number;
}

/**
 * A page of the organization's invalid clicks grouped by IP and campaign, in (ip, campaign) order
 * so the pages follow each other by key. A verified crawler is never invalid. The latest gclid is
 * the one an analyst would look up in the ad platform.
 */
export function selectInvalidIps(mirror: Pick<Mirror, 'query'>, page: InvalidIpPage): Promise<InvalidIpRow[]> {
  return mirror.query<InvalidIpRow>(
    `SELECT ip, coalesce(campaign_id, '') AS campaign_id, max(risk_score) AS score, count(*) AS clicks,
            min(created_at) AS first_seen, max(created_at) AS last_seen,
            arg_max(gclid, created_at) FILTER (WHERE gclid IS NOT NULL) AS gclid,
            list_distinct(flatten(list(from_json(risk_reasons, '["VARCHAR"]')))) AS reasons
       FROM clicks
      WHERE org_id = $1 AND created_at >= $2 AND risk_score >= $3 AND NOT is_bot AND ip IS NOT NULL
        AND ($4::VARCHAR IS NULL OR ip > $4 OR (ip = $4 AND coalesce(campaign_id, '') > $5))
      GROUP BY ip, coalesce(campaign_id, '')
      ORDER BY ip, campaign_id
      LIMIT $6`,
    [page.orgId, page.since, page.threshold, page.after?.ip ?? null, page.after?.campaign_id ?? '', page.limit],
  );
}
