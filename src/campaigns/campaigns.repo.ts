import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { CampaignRow } from './campaigns.model';

const COLUMNS = 'id, org_id, app_id, name, external_id, status, skan_source_identifier, partner, created_at';

export const CAMPAIGNS_SKAN_SOURCE_IDENTIFIER_KEY = 'campaigns_skan_source_identifier_key';

/**
 * Inserts unless the organization already has this external_id; undefined then, and nothing was
 * written. A taken skan_source_identifier fails with a unique violation of CAMPAIGNS_SKAN_SOURCE_IDENTIFIER_KEY.
 */
export async function insertCampaign(
  tx: Queryable,
  campaign: { id: string; orgId: string; appId: string | null; name: string; externalId: string | null; skanSourceIdentifier: number | null; partner: string | null },
): Promise<CampaignRow | undefined> {
  const rows = await tx.query<CampaignRow>(
    `INSERT INTO campaigns (id, org_id, app_id, name, external_id, skan_source_identifier, partner) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (org_id, external_id) WHERE external_id IS NOT NULL DO NOTHING
     RETURNING ${COLUMNS}`,
    [campaign.id, campaign.orgId, campaign.appId, campaign.name, campaign.externalId, campaign.skanSourceIdentifier, campaign.partner],
  );
  return rows[0];
}

/** Sets the fields given (`partner` given as null clears it); undefined for an unknown or foreign id. */
export async function updateCampaign(
  tx: Queryable,
  orgId: string,
  id: string,
  change: { name?: string; partner?: string | null },
): Promise<CampaignRow | undefined> {
  const rows = await tx.query<CampaignRow>(
    `UPDATE campaigns SET name = coalesce($3, name), partner = CASE WHEN $4::boolean THEN $5 ELSE partner END
      WHERE id = $1 AND org_id = $2
      RETURNING ${COLUMNS}`,
    [id, orgId, change.name ?? null, change.partner !== undefined, change.partner ?? null],
  );
  return rows[0];
}

export async function findCampaign(db: Queryable, orgId: string, id: string): Promise<CampaignRow | undefined> {
  const rows = await db.query<CampaignRow>(`SELECT ${COLUMNS} FROM campaigns WHERE id = $1 AND org_id = $2`, [id, orgId]);
  return rows[0];
}

/** Newest first; the cursor names the last one shown. */
export const CAMPAIGNS_KEYSET: Keyset = { kind: 'anchor', list: 'campaigns', table: 'campaigns', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listCampaigns(db: Queryable, orgId: string, page: PageRequest): Promise<CampaignRow[]> {
  const after = keysetCondition(CAMPAIGNS_KEYSET, page.after, 3);
  return db.query<CampaignRow>(`SELECT ${COLUMNS} FROM campaigns WHERE org_id = $1 AND ${after.sql} ORDER BY ${keysetOrder(CAMPAIGNS_KEYSET)} LIMIT $2`, [orgId, page.limit, ...after.params]);
}

/** Whether the id names a campaign of this organization (another organization's id reads as unknown). */
export async function campaignExists(db: Queryable, orgId: string, id: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM campaigns WHERE id = $1 AND org_id = $2', [id, orgId]);
  return rows.length > 0;
}

/** Names of the organization's campaigns among `ids` (the analytics mirror holds no campaigns). */
export async function selectCampaignNames(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; name: string }>('SELECT id, name FROM campaigns WHERE org_id = $1 AND id = ANY($2::text[])', [orgId, ids]);
  return new Map(rows.map((row) => [row.id, row.name]));
}
