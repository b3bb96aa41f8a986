import { type Actor, recordAudit } from '../auth/audit';
import type { KeyChanges } from '../auth/key-changes';
import { generateSdkKey } from '../auth/sdk-keys';
import type { Db } from '../db/db';
import { notFound, validationError } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { parseHttpUrl } from '../shared/net/web-url';
import { newId } from '../shared/ids';
import { type AppResponse, type AppRow, type CreateAppBody, DEFAULT_LIST_LIMIT, type ListAppsQuery, type PatchAppBody, REATTRIBUTION_DAYS } from './apps.model';
import * as repo from './apps.repo';

export function toAppResponse(row: AppRow): AppResponse {
  return {
    id: row.id,
    name: row.name,
    platform: row.platform,
    bundle_id: row.bundle_id,
    store_url: row.store_url,
    apple_app_id: row.apple_app_id,
    sdk_key: row.sdk_key,
    reattribution_days: row.reattribution_days,
    settings: row.settings ?? {},
    rate_limit_per_minute: row.rate_limit_per_minute,
    created_at: row.created_at.toISOString(),
  };
}

/** store_url is a store page or web fallback a visitor may be sent to: the same rule as a link destination. */
function checkStoreUrl(storeUrl: string | null | undefined): void {
  if (storeUrl === null || storeUrl === undefined) return;
  const parsed = parseHttpUrl(storeUrl);
  if ('error' in parsed) throw validationError({ store_url: [parsed.error] });
}

/** Creates an app with a fresh SDK key (stored in clear for display, looked up by its hash). */
export async function createApp({ db }: { db: Db }, actor: Actor, body: CreateAppBody): Promise<AppResponse> {
  checkStoreUrl(body.store_url);
  const row = await db.transaction(async (tx) => {
    let created: AppRow | undefined;
    while (!created) {
      const sdk = generateSdkKey();
      created = await repo.insertApp(tx, {
        id: newId(),
        orgId: actor.orgId,
        name: body.name,
        platform: body.platform,
        bundleId: body.bundle_id ?? null,
        storeUrl: body.store_url ?? null,
        appleAppId: body.apple_app_id ?? null,
        sdkKey: sdk.key,
        sdkKeyHash: sdk.hash,
        reattributionDays: body.reattribution_days ?? REATTRIBUTION_DAYS.default,
        settings: body.settings ?? {},
        rateLimitPerMinute: body.rate_limit_per_minute ?? null,
      });
    }
    // The SDK key stays out of the audit detail: the log records who wrote what, not secrets.
    await recordAudit(
      tx,
      actor,
      { action: 'create', entity: 'app', entityId: created.id, detail: { name: created.name, platform: created.platform, ...(created.rate_limit_per_minute === null ? {} : { rate_limit_per_minute: created.rate_limit_per_minute }) } },
    );
    return created;
  });
  return toAppResponse(row);
}

export async function getApp({ db }: { db: Db }, orgId: string, id: string): Promise<AppResponse> {
  const row = await repo.findApp(db, orgId, id);
  if (!row) throw notFound('app not found');
  return toAppResponse(row);
}

export function listApps({ db }: { db: Db }, orgId: string, query: ListAppsQuery = {}): Promise<Page<AppResponse>> {
  return readPage({
    keyset: repo.APPS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_LIST_LIMIT,
    fetch: (page) => repo.listApps(db, orgId, page),
    keyOf: (row) => [row.id],
    view: toAppResponse,
  });
}

/**
 * Absent fields stay; name, store_url, apple_app_id, reattribution_days and rate_limit_per_minute are
 * replaced; settings merge key by key (null removes a key). An unknown or foreign id is 404 and
 * nothing changes. A new limit of the SDK key reaches every node's key cache at once.
 */
export async function patchApp({ db, keyChanges }: { db: Db; keyChanges: Pick<KeyChanges, 'publish'> }, actor: Actor, id: string, body: PatchAppBody): Promise<AppResponse> {
  const update = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as PatchAppBody;
  const fields = Object.keys(update);
  if (fields.length === 0) throw validationError({}, ['the body names no field to change']);
  checkStoreUrl(body.store_url);
  const limitChanged = 'rate_limit_per_minute' in update;
  const row = await db.transaction(async (tx) => {
    const before = limitChanged ? await repo.lockRateLimit(tx, actor.orgId, id) : undefined;
    const updated = await repo.updateApp(tx, actor.orgId, id, update);
    if (!updated) throw notFound('app not found');
    // Who changed the SDK key's limit, and from what: the detail keeps both ends.
    const limit = before === undefined ? {} : { rate_limit_per_minute: { from: before, to: updated.rate_limit_per_minute } };
    await recordAudit(tx, actor, { action: 'update', entity: 'app', entityId: id, detail: { fields, ...limit } });
    return updated;
  });
  if (limitChanged) await keyChanges.publish({ kind: 'sdk', appId: id });
  return toAppResponse(row);
}

/**
 * A new SDK key for the app, shown in the answer. The old key is refused (401) from the next
 * request on every node: each node's SDK key cache drops the app when it hears the change.
 */
export async function rotateSdkKey({ db, keyChanges }: { db: Db; keyChanges: Pick<KeyChanges, 'publish'> }, actor: Actor, id: string): Promise<AppResponse> {
  const row = await db.transaction(async (tx) => {
    let rotated: AppRow | undefined;
    while (!rotated) {
      const sdk = generateSdkKey();
      const result = await repo.replaceSdkKey(tx, actor.orgId, id, { sdkKey: sdk.key, sdkKeyHash: sdk.hash });
      if (result === undefined) throw notFound('app not found');
      if (result !== 'taken') rotated = result;
    }
    // Neither key goes into the audit detail: the log records who wrote what, not secrets.
    await recordAudit(tx, actor, { action: 'rotate', entity: 'sdk_key', entityId: id, detail: { app: rotated.name } });
    return rotated;
  });
  await keyChanges.publish({ kind: 'sdk', appId: id });
  return toAppResponse(row);
}

/** Deletes the app: gone from lists and lookups, its SDK key refused at once on every node; its data stays. */
export async function deleteApp({ db, keyChanges }: { db: Db; keyChanges: Pick<KeyChanges, 'publish'> }, actor: Actor, id: string): Promise<{ ok: true; id: string }> {
  await db.transaction(async (tx) => {
    const deleted = await repo.markAppDeleted(tx, actor.orgId, id);
    if (!deleted) throw notFound('app not found');
    await recordAudit(tx, actor, { action: 'delete', entity: 'app', entityId: id, detail: { name: deleted.name } });
  });
  await keyChanges.publish({ kind: 'sdk', appId: id });
  return { ok: true, id };
}
