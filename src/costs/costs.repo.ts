import type { Queryable } from '../db/db';

/** The organization's campaigns among the given ids and external ids (others' stay unknown). */
export function findCampaigns(tx: Queryable, orgId: string, ids: string[], externalIds: string[]): Promise<{ id: string; external_id: string | null }[]> {
  return tx.query(
    `SELECT id, external_id FROM campaigns
      WHERE org_id = $1
        AND (id IN (SELECT jsonb_array_elements_text($2::text::jsonb))
             OR external_id IN (SELECT jsonb_array_elements_text($3::text::jsonb)))`,
    [orgId, JSON.stringify(ids), JSON.stringify(externalIds)],
  );
}

export interface CostUpsert {
  id: string;
  campaign_id: string;
  day: string;
  spend: number;
  currency: string;
  impressions: number | null;
}

/**
 * One statement for the whole batch: each campaign-day is inserted or replaced. The rows
 * travel as one JSON parameter, so 5000 rows need no 5000-placeholder statement.
 */
export async function upsertCosts(tx: Queryable, orgId: string, rows: CostUpsert[]): Promise<number> {
  if (rows.length === 0) return 0;
  const written = await tx.query(
    `INSERT INTO costs (id, org_id, campaign_id, day, spend, currency, impressions)
     SELECT r.id, $1, r.campaign_id, r.day, r.spend, r.currency, r.impressions
       FROM jsonb_to_recordset($2::text::jsonb) AS r(id text, campaign_id text, day date, spend numeric, currency text, impressions bigint)
     ON CONFLICT (campaign_id, day) DO UPDATE SET
       spend = EXCLUDED.spend, currency = EXCLUDED.currency, impressions = EXCLUDED.impressions, updated_at = now()
     RETURNING id`,
    [orgId, JSON.stringify(rows)],
  );
  return written.length;
}
