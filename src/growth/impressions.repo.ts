import type { Queryable } from '../db/db';
import type { ImpressionRecord } from '../tracking/tracking.model';

/** The organization's apps among `ids`. */
export async function findOrgApps(db: Queryable, orgId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ id: string }>('SELECT id FROM apps WHERE org_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL', [orgId, ids]);
  return new Set(rows.map((row) => row.id));
}

/**
 * One statement for the whole batch: the rows travel as one JSON parameter (the statement text
 * never changes, so it stays prepared) and Postgres unpacks them with json_to_recordset.
 */
const INSERT_IMPRESSIONS = `INSERT INTO impressions (id, org_id, campaign_id, app_id, creative_id, placement, partner, ip_day_hash,
    household_hash, user_agent, os, device_type, country, source, created_at)
  SELECT r.id, r.org_id, r.campaign_id, r.app_id, r.creative_id, r.placement, r.partner, r.ip_day_hash,
    r.household_hash, r.user_agent, r.os, r.device_type, r.country, r.source, r.created_at
    FROM json_to_recordset($1::json) AS r(id text, org_id text, campaign_id text, app_id text, creative_id text, placement text,
      partner text, ip_day_hash text, household_hash text, user_agent text, os text, device_type text, country text, source text,
      created_at timestamptz)`;

export async function insertImportedImpressions(tx: Queryable, impressions: readonly ImpressionRecord[]): Promise<void> {
  await tx.query(INSERT_IMPRESSIONS, [JSON.stringify(impressions)]);
}
