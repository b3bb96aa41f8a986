import type { Queryable } from '../db/db';

/** SQL of GET /api/edge/links/hot. */

export interface HotLinkRow {
  slug: string;
  domain: string;
  kind: string;
  status: string;
  destination: string | null;
  expires_at: Date | null;
  click_cap: number | null;
  rules: unknown;
  allowed_landing_hosts: unknown;
  clicks_24h: number;
  updated_at: Date;
}

/**
 * The organization's links, most clicked since $2 first, then the most recently updated. The
 * count is an index-only scan of clicks_org_created_link_idx (docs/edge.md, "Cost"); links on a
 * custom domain that does not serve yet (unverified, while $3 requires verification) are left out.
 */
export const HOT_LINKS_SQL = `WITH counted AS (
    SELECT link_id, count(*)::int AS clicks
      FROM clicks
     WHERE org_id = $1 AND created_at > $2::timestamptz AND link_id IS NOT NULL
     GROUP BY link_id
  )
  SELECT links.slug, links.domain, links.kind, links.status, links.destination, links.expires_at, links.click_cap,
         links.rules, links.allowed_landing_hosts, COALESCE(counted.clicks, 0) AS clicks_24h, links.updated_at
    FROM links
    LEFT JOIN counted ON counted.link_id = links.id
   WHERE links.org_id = $1
     AND (NOT $3::boolean OR links.domain = '' OR EXISTS (
           SELECT 1 FROM link_domains d WHERE d.domain = links.domain AND d.org_id = links.org_id AND d.verified_at IS NOT NULL))
   ORDER BY clicks_24h DESC, links.updated_at DESC, links.id
   LIMIT $4`;

export function selectHotLinks(db: Queryable, input: { orgId: string; since: Date; requireVerifiedDomains: boolean; limit: number }): Promise<HotLinkRow[]> {
  return db.query<HotLinkRow>(HOT_LINKS_SQL, [input.orgId, input.since.toISOString(), input.requireVerifiedDomains, input.limit]);
}
