import { appExists } from '../apps/apps.repo';
import { type Actor, recordAudit } from '../auth/audit';
import type { Db } from '../db/db';
import { conflict, fieldError } from '../http/errors';
import { newId } from '../shared/ids';
import { type CampaignResponse, type CampaignRow, type CreateCampaignBody, DEFAULT_LIST_LIMIT } from './campaigns.model';
import * as repo from './campaigns.repo';

export function toCampaignResponse(row: CampaignRow): CampaignResponse {
  return {
    id: row.id,
    name: row.name,
    external_id: row.external_id,
    app_id: row.app_id,
    status: row.status,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * Creates a campaign. external_id is unique per organization (409 on a repeat, decided by the
 * unique index, not a prior read); app_id must name an app of the caller's organization.
 */
export async function createCampaign({ db }: { db: Db }, actor: Actor, body: CreateCampaignBody): Promise<CampaignResponse> {
  const appId = body.app_id ?? null;
  const row = await db.transaction(async (tx) => {
    // Another organization's app reads exactly like an unknown one.
    if (appId !== null && !(await appExists(tx, actor.orgId, appId))) throw fieldError('app_id', 'unknown app');
    const created = await repo.insertCampaign(tx, { id: newId(), orgId: actor.orgId, appId, name: body.name, externalId: body.external_id ?? null });
    if (!created) throw conflict('external_id taken');
    await recordAudit(
      tx,
      actor,
      { action: 'create', entity: 'campaign', entityId: created.id, detail: { name: created.name, external_id: created.external_id, app_id: created.app_id } },
    );
    return created;
  });
  return toCampaignResponse(row);
}

export async function listCampaigns({ db }: { db: Db }, orgId: string, limit = DEFAULT_LIST_LIMIT): Promise<CampaignResponse[]> {
  return (await repo.listCampaigns(db, orgId, limit)).map(toCampaignResponse);
}
