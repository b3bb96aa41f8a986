import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { AppRow } from './apps.model';

const COLUMNS = 'id, org_id, name, platform, bundle_id, store_url, apple_app_id, sdk_key, reattribution_days, settings, rate_limit_per_minute, created_at';

export interface NewApp {
  id: string;
  orgId: string;
  name: string;
  platform: string;
  bundleId: string | null;
  storeUrl: string | null;
  appleAppId: string | null;
  sdkKey: string;
  sdkKeyHash: string;
  reattributionDays: number;
  settings: Record<string, unknown>;
  rateLimitPerMinute: number | null;
}

/** Inserts unless the SDK key hash already exists (a 62^32 draw: the caller simply draws again). */
export async function insertApp(tx: Queryable, app: NewApp): Promise<AppRow | undefined> {
  const rows = await tx.query<AppRow>(
    `INSERT INTO apps (id, org_id, name, platform, bundle_id, store_url, apple_app_id, sdk_key, sdk_key_hash, reattribution_days, settings, rate_limit_per_minute)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, jsonb_strip_nulls($11::text::jsonb), $12)
     ON CONFLICT (sdk_key_hash) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      app.id,
      app.orgId,
      app.name,
      app.platform,
      app.bundleId,
      app.storeUrl,
      app.appleAppId,
      app.sdkKey,
      app.sdkKeyHash,
      app.reattributionDays,
      JSON.stringify(app.settings),
      app.rateLimitPerMinute,
    ],
  );
  return rows[0];
}

export async function findApp(db: Queryable, orgId: string, id: string): Promise<AppRow | undefined> {
  const rows = await db.query<AppRow>(`SELECT ${COLUMNS} FROM apps WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL`, [id, orgId]);
  return rows[0];
}

/** Newest first; the cursor names the last one shown. */
export const APPS_KEYSET: Keyset = { kind: 'anchor', list: 'apps', table: 'apps', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listApps(db: Queryable, orgId: string, page: PageRequest): Promise<AppRow[]> {
  const after = keysetCondition(APPS_KEYSET, page.after, 3);
  return db.query<AppRow>(`SELECT ${COLUMNS} FROM apps WHERE org_id = $1 AND deleted_at IS NULL AND ${after.sql} ORDER BY ${keysetOrder(APPS_KEYSET)} LIMIT $2`, [orgId, page.limit, ...after.params]);
}

/** Names of the organization's apps among `ids` (apps are not mirrored: report labels come from here). */
export async function selectAppNames(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; name: string }>('SELECT id, name FROM apps WHERE org_id = $1 AND id = ANY($2::text[])', [orgId, ids]);
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** Whether the id names an app of this organization (another organization's id reads as unknown). */
export async function appExists(db: Queryable, orgId: string, id: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM apps WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL', [id, orgId]);
  return rows.length > 0;
}

/**
 * One fixed statement for every PATCH. Settings merge key by key inside the UPDATE (a null
 * value removes its key), so two PATCHes of different windows never overwrite each other.
 */
export async function updateApp(
  tx: Queryable,
  orgId: string,
  id: string,
  update: {
    name?: string;
    store_url?: string | null;
    apple_app_id?: string | null;
    reattribution_days?: number;
    settings?: Record<string, unknown>;
    rate_limit_per_minute?: number | null;
  },
): Promise<AppRow | undefined> {
  const rows = await tx.query<AppRow>(
    `UPDATE apps SET
       name = CASE WHEN $3::boolean THEN $4::text ELSE name END,
       store_url = CASE WHEN $5::boolean THEN $6::text ELSE store_url END,
       reattribution_days = CASE WHEN $7::boolean THEN $8::integer ELSE reattribution_days END,
       settings = CASE WHEN $9::boolean THEN jsonb_strip_nulls(settings || $10::text::jsonb) ELSE settings END,
       apple_app_id = CASE WHEN $11::boolean THEN $12::text ELSE apple_app_id END,
       rate_limit_per_minute = CASE WHEN $13::boolean THEN $14::integer ELSE rate_limit_per_minute END
     WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL
     RETURNING ${COLUMNS}`,
    [
      id,
      orgId,
      'name' in update,
      update.name ?? null,
      'store_url' in update,
      update.store_url ?? null,
      'reattribution_days' in update,
      update.reattribution_days ?? null,
      'settings' in update,
      JSON.stringify(update.settings ?? {}),
      'apple_app_id' in update,
      update.apple_app_id ?? null,
      'rate_limit_per_minute' in update,
      update.rate_limit_per_minute ?? null,
    ],
  );
  return rows[0];
}

/** The SDK key's limit before a change, the row locked until the transaction ends; undefined for no such app. */
export async function lockRateLimit(tx: Queryable, orgId: string, id: string): Promise<number | null | undefined> {
  const rows = await tx.query<{ rate_limit_per_minute: number | null }>('SELECT rate_limit_per_minute FROM apps WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL FOR UPDATE', [id, orgId]);
  return rows[0]?.rate_limit_per_minute;
}

/** A new SDK key for the app; undefined for no such app, or when the draw's hash is taken (draw again). */
export async function replaceSdkKey(tx: Queryable, orgId: string, id: string, key: { sdkKey: string; sdkKeyHash: string }): Promise<AppRow | 'taken' | undefined> {
  const taken = await tx.query('SELECT 1 FROM apps WHERE sdk_key_hash = $1', [key.sdkKeyHash]);
  if (taken.length > 0) return 'taken';
  const rows = await tx.query<AppRow>(
    `UPDATE apps SET sdk_key = $3, sdk_key_hash = $4 WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [id, orgId, key.sdkKey, key.sdkKeyHash],
  );
  return rows[0];
}

/** Marks the app deleted: its rows stay for the reports, its SDK key is refused from now on. */
export async function markAppDeleted(tx: Queryable, orgId: string, id: string): Promise<{ name: string } | undefined> {
  const rows = await tx.query<{ name: string }>('UPDATE apps SET deleted_at = now() WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL RETURNING name', [id, orgId]);
  return rows[0];
}
