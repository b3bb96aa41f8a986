import { appExists } from '../apps/apps.repo';
import { type Actor, recordAudit } from '../auth/audit';
import type { Db } from '../db/db';
import { isUniqueViolation } from '../db/errors';
import { conflict, fieldError, notFound, validationError } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { newId } from '../shared/ids';
import { skanFigures } from '../skan/skan.repo';
import { type CampaignDetailResponse, type CampaignResponse, type CampaignRow, type CreateCampaignBody, DEFAULT_LIST_LIMIT, type ListCampaignsQuery, type PatchCampaignBody } from './campaigns.model';
import * as repo from './campaigns.repo';

export function toCampaignResponse(row: CampaignRow): CampaignResponse {
  return {
    id: row.id,
    name: row.name,
    external_id: row.external_id,
    app_id: row.app_id,
    status: row.status,
    skan_source_identifier: row.skan_source_identifier,
    partner: row.partner,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * Creates a campaign. external_id and skan_source_identifier are unique per organization (409 on
 * a repeat, decided by the unique indexes, not a prior read); app_id must name an app of the caller's organization.
 */
export async function createCampaign({ db }: { db: Db }, actor: Actor, body: CreateCampaignBody): Promise<CampaignResponse> {
  const appId = body.app_id ?? null;
  const row = await db.transaction(async (tx) => {
    // Another organization's app reads exactly like an unknown one.
    if (appId !== null && !(await appExists(tx, actor.orgId, appId))) throw fieldError('app_id', 'unknown app');
    let created: CampaignRow | undefined;
    try {
      created = await repo.insertCampaign(tx, {
        id: newId(),
        orgId: actor.orgId,
        appId,
        name: body.name,
        externalId: body.external_id ?? null,
        skanSourceIdentifier: body.skan_source_identifier ?? null,
        partner: body.partner ?? null,
      });
    } catch (error) {
      if (isUniqueViolation(error, repo.CAMPAIGNS_SKAN_SOURCE_IDENTIFIER_KEY)) throw conflict('skan_source_identifier taken');
      throw error;
    }
    if (!created) throw conflict('external_id taken');
    await recordAudit(
      tx,
      actor,
      {
        action: 'create',
        entity: 'campaign',
        entityId: created.id,
        detail: { name: created.name, external_id: created.external_id, app_id: created.app_id, skan_source_identifier: created.skan_source_identifier, partner: created.partner },
      },
    );
    return created;
  });
  return toCampaignResponse(row);
}

export function listCampaigns({ db }: { db: Db }, orgId: string, query: ListCampaignsQuery = {}): Promise<Page<CampaignResponse>> {
  return readPage({
    keyset: repo.CAMPAIGNS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_LIST_LIMIT,
    fetch: (page) => repo.listCampaigns(db, orgId, page),
    keyOf: (row) => [row.id],
    view: toCampaignResponse,
  });
}

/** One campaign with its SKAN figures; another organization's id reads as unknown (404). */
export async function getCampaign({ db }: { db: Db }, orgId: string, id: string): Promise<CampaignDetailResponse> {
  const row = await repo.findCampaign(db, orgId, id);
  if (!row) throw notFound('campaign not found');
  return { ...toCampaignResponse(row), skan: await skanFigures(db, orgId, id) };
}

/** Changes the fields given, the others stay; a body naming none is a 400, an unknown or foreign id a 404. */
export async function patchCampaign({ db }: { db: Db }, actor: Actor, id: string, body: PatchCampaignBody): Promise<CampaignResponse> {
  const fields = (['name', 'partner'] as const).filter((field) => body[field] !== undefined);
  if (fields.length === 0) throw validationError({}, ['the body names no field to change: name, partner']);
  const row = await db.transaction(async (tx) => {
    const updated = await repo.updateCampaign(tx, actor.orgId, id, body);
    if (!updated) throw notFound('campaign not found');
    await recordAudit(tx, actor, { action: 'update', entity: 'campaign', entityId: id, detail: { fields } });
    return updated;
  });
  return toCampaignResponse(row);
}
