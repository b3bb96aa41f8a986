import type { ApiKeyPrincipal } from '../auth/api-keys';
import { recordAudit } from '../auth/audit';
import type { Db } from '../db/db';
import { validationError } from '../http/errors';
import { newId } from '../shared/ids';
import { parseDay } from '../shared/timestamp';
import { DEFAULT_CURRENCY, type CostRow, type CostsResult } from './costs.model';
import { findCampaigns, upsertCosts, type CostUpsert } from './costs.repo';

/** Field errors the schema cannot express, named by row: rows.3.day, rows.0.campaign_id. */
export function rowProblems(rows: readonly CostRow[]): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  rows.forEach((row, index) => {
    const day = parseDay(row.day);
    if ('error' in day) problems[`rows.${index}.day`] = [day.error];
    if (row.campaign_id === undefined && row.campaign_external_id === undefined) {
      problems[`rows.${index}.campaign_id`] = ['campaign_id or campaign_external_id is required'];
    }
  });
  return problems;
}

/**
 * Imports daily costs: the whole batch is checked first (one bad row writes nothing), then each
 * row is upserted on campaign + day in one transaction; unknown campaigns are skipped, and a
 * campaign-day named twice counts once, the later row winning (docs/costs.md).
 */
export async function importCosts({ db }: { db: Db }, principal: ApiKeyPrincipal, rows: readonly CostRow[]): Promise<CostsResult> {
  const problems = rowProblems(rows);
  if (Object.keys(problems).length > 0) throw validationError(problems);
  const ids = [...new Set(rows.flatMap((row) => (row.campaign_id !== undefined ? [row.campaign_id] : [])))];
  const externalIds = [
    ...new Set(rows.flatMap((row) => (row.campaign_id === undefined && row.campaign_external_id !== undefined ? [row.campaign_external_id] : []))),
  ];
  return db.transaction(async (tx) => {
    const campaigns = await findCampaigns(tx, principal.orgId, ids, externalIds);
    const byId = new Set(campaigns.map((c) => c.id));
    const byExternalId = new Map(campaigns.flatMap((c) => (c.external_id === null ? [] : [[c.external_id, c.id] as const])));
    const upserts = new Map<string, CostUpsert>();
    let skipped = 0;
    for (const row of rows) {
      const campaignId = row.campaign_id !== undefined ? (byId.has(row.campaign_id) ? row.campaign_id : undefined) : byExternalId.get(row.campaign_external_id!);
      if (campaignId === undefined) {
        skipped += 1;
        continue;
      }
      const key = `${campaignId}|${row.day}`;
      upserts.delete(key);
      upserts.set(key, {
        id: newId(),
        campaign_id: campaignId,
        day: row.day,
        spend: row.spend,
        currency: (row.currency ?? DEFAULT_CURRENCY).toUpperCase(),
        impressions: row.impressions ?? null,
      });
    }
    const upserted = await upsertCosts(tx, principal.orgId, [...upserts.values()]);
    await recordAudit(tx, { orgId: principal.orgId, apiKeyId: principal.keyId }, {
      action: 'upsert',
      entity: 'cost',
      detail: { rows: rows.length, upserted, skipped },
    });
    return { ok: true, upserted };
  });
}
