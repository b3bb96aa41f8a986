import type { Queryable } from '../db/db';

/** How an imported row names its campaign: the service's id, or the ad platform's (external) id. */
export interface CampaignRef {
  campaign_id?: string;
  campaign_external_id?: string;
}

export interface FoundCampaign {
  id: string;
  app_id: string | null;
}

interface CampaignRow extends FoundCampaign {
  external_id: string | null;
}

/**
 * Each row's campaign within the organization, or null: `campaign_id` decides when both are
 * given; an unknown campaign, or another organization's, is null alike.
 */
export async function resolveCampaigns(db: Queryable, orgId: string, rows: readonly CampaignRef[]): Promise<(FoundCampaign | null)[]> {
  const ids = new Set<string>();
  const externalIds = new Set<string>();
  for (const row of rows) {
    if (row.campaign_id !== undefined) ids.add(row.campaign_id);
    else if (row.campaign_external_id !== undefined) externalIds.add(row.campaign_external_id);
  }
  if (ids.size === 0 && externalIds.size === 0) return rows.map(() => null);
  const found = await db.query<CampaignRow>(
    `SELECT id, app_id, external_id FROM campaigns
      WHERE org_id = $1 AND (id = ANY($2::text[]) OR external_id = ANY($3::text[]))`,
    [orgId, [...ids], [...externalIds]],
  );
  const byId = new Map(found.map((c) => [c.id, { id: c.id, app_id: c.app_id }]));
  const byExternalId = new Map(found.flatMap((c) => (c.external_id === null ? [] : [[c.external_id, { id: c.id, app_id: c.app_id }] as const])));
  return rows.map((row) => {
    if (row.campaign_id !== undefined) return byId.get(row.campaign_id) ?? null;
    return row.campaign_external_id !== undefined ? byExternalId.get(row.campaign_external_id) ?? null : null;
  });
}
