import type { Queryable } from '../db/db';
import type { SmartLinkColumns } from '../tracking/smartlinks/smart-link';

export interface RouteTestLink extends SmartLinkColumns {
  kind: string;
  status: string;
  destination: string | null;
}

/** The organization's link with this slug; on the tracking host first when a custom domain has it too. */
export async function findSmartLinkForTest(db: Queryable, orgId: string, slug: string): Promise<RouteTestLink | null> {
  const rows = await db.query<RouteTestLink>(
    `SELECT id, kind, status, destination, rules, expires_at, click_cap, pass_params, preview
       FROM links WHERE org_id = $1 AND slug = $2 ORDER BY (domain = '') DESC, created_at LIMIT 1`,
    [orgId, slug],
  );
  return rows[0] ?? null;
}
