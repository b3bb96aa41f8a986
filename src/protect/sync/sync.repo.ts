import type { Queryable } from '../../db/db';

export interface SyncCampaign {
  id: string;
  external_id: string;
}

/** The organization's campaigns a sync pushes to: active ones with an ad-platform id. */
export async function selectSyncCampaigns(db: Queryable, orgId: string): Promise<SyncCampaign[]> {
  return db.query<SyncCampaign>(
    `SELECT id, external_id FROM campaigns
     WHERE org_id = $1 AND status = 'active' AND external_id IS NOT NULL ORDER BY created_at, id`,
    [orgId],
  );
}

export interface OwnedExclusion {
  ip_block: string;
  criterion_resource_name: string;
}

/** What this service pushed to the campaign and recorded (ip_exclusions). */
export async function selectOwnedExclusions(db: Queryable, orgId: string, campaignId: string): Promise<OwnedExclusion[]> {
  return db.query<OwnedExclusion>('SELECT ip_block, criterion_resource_name FROM ip_exclusions WHERE org_id = $1 AND campaign_id = $2', [orgId, campaignId]);
}

/**
 * Records what the ad platform accepted: `forget` the criteria removed or no longer there, then
 * the criteria created under their resource names. Run it in the transaction of the audit row.
 */
export async function recordExclusions(
  db: Queryable,
  input: { orgId: string; campaignId: string; forget: readonly string[]; pushed: readonly { ip_block: string; criterion_resource_name: string }[] },
): Promise<void> {
  if (input.forget.length > 0) {
    await db.query(
      `DELETE FROM ip_exclusions WHERE org_id = $1 AND campaign_id = $2
         AND criterion_resource_name IN (SELECT jsonb_array_elements_text($3::text::jsonb))`,
      [input.orgId, input.campaignId, JSON.stringify(input.forget)],
    );
  }
  if (input.pushed.length > 0) {
    await db.query(
      `INSERT INTO ip_exclusions (org_id, campaign_id, ip_block, criterion_resource_name)
       SELECT $1, $2, r.ip_block, r.criterion_resource_name
       FROM jsonb_to_recordset($3::text::jsonb) AS r(ip_block text, criterion_resource_name text)
       ON CONFLICT (org_id, campaign_id, ip_block)
       DO UPDATE SET criterion_resource_name = EXCLUDED.criterion_resource_name, pushed_at = now()`,
      [input.orgId, input.campaignId, JSON.stringify(input.pushed)],
    );
  }
}
