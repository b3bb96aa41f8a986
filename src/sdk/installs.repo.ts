import type { Attribution } from '../attribution/attribution.model';
import type { Queryable } from '../db/db';

/** The columns an SDK answer is built from. */
export interface InstallRow {
  id: string;
  attribution_method: string;
  campaign_id: string | null;
  click_id: string | null;
  deep_link_path: string | null;
  is_reattribution: boolean;
  installed_at: Date;
  attributed_at: Date;
}

const INSTALL_COLUMNS = 'id, attribution_method, campaign_id, click_id, deep_link_path, is_reattribution, installed_at, attributed_at';

export async function findInstallByDevice(db: Queryable, appId: string, deviceIdHash: string): Promise<InstallRow | null> {
  const rows = await db.query<InstallRow>(`SELECT ${INSTALL_COLUMNS} FROM installs WHERE app_id = $1 AND device_id_hash = $2`, [appId, deviceIdHash]);
  return rows[0] ?? null;
}

export async function findInstallById(db: Queryable, appId: string, installId: string): Promise<InstallRow | null> {
  const rows = await db.query<InstallRow>(`SELECT ${INSTALL_COLUMNS} FROM installs WHERE app_id = $1 AND id = $2`, [appId, installId]);
  return rows[0] ?? null;
}

export interface NewInstall {
  id: string;
  orgId: string;
  appId: string;
  deviceIdHash: string;
  platform: string;
  osVersion: string | null;
  appVersion: string | null;
  sdkVersion: string | null;
  locale: string | null;
  timezone: string | null;
  limitAdTracking: boolean | null;
  installedAt: Date;
  attribution: Attribution;
  ipDayHash: string | null;
  householdHash: string | null;
}

/**
 * Inserts the install unless the app already has one for this device (the idempotency key).
 * Resolves to null when another call for the same device won the race.
 */
export async function insertInstall(db: Queryable, install: NewInstall): Promise<InstallRow | null> {
  const a = install.attribution;
  const rows = await db.query<InstallRow>(
    `INSERT INTO installs (id, org_id, app_id, device_id_hash, platform, os_version, app_version, sdk_version, locale, timezone,
       limit_ad_tracking, installed_at, attribution_method, campaign_id, click_id, impression_id, deep_link_path, match_evidence,
       confidence, is_reattribution, attributed_at, ip_day_hash, household_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::timestamptz, $13, $14, $15, $16, $17, $18::text::jsonb, $19, false,
       $12::timestamptz, $20, $21)
     ON CONFLICT (app_id, device_id_hash) DO NOTHING
     RETURNING ${INSTALL_COLUMNS}`,
    [
      install.id,
      install.orgId,
      install.appId,
      install.deviceIdHash,
      install.platform,
      install.osVersion,
      install.appVersion,
      install.sdkVersion,
      install.locale,
      install.timezone,
      install.limitAdTracking,
      install.installedAt.toISOString(),
      ...attributionValues(a),
      install.ipDayHash,
      install.householdHash,
    ],
  );
  return rows[0] ?? null;
}

/** The attribution columns' values, in the order both statements below list them. */
function attributionValues(a: Attribution): unknown[] {
  return [a.method, a.campaignId, a.clickId, a.impressionId, a.deepLinkPath, JSON.stringify(a.evidence), a.confidence];
}

/**
 * Re-attributes an install to a newer touch. The previous attributed_at guards the update, so
 * two concurrent repeats re-attribute once; null means the other one did.
 */
export async function reattributeInstall(
  db: Queryable,
  input: { id: string; previousAttributedAt: Date; at: Date; attribution: Attribution; appVersion: string | null; osVersion: string | null },
): Promise<InstallRow | null> {
  const a = input.attribution;
  const rows = await db.query<InstallRow>(
    `UPDATE installs SET attribution_method = $3, campaign_id = $4, click_id = $5, impression_id = $6, deep_link_path = $7,
       match_evidence = $8::text::jsonb, confidence = $9, is_reattribution = true, attributed_at = $10::timestamptz,
       app_version = COALESCE($11, app_version), os_version = COALESCE($12, os_version), updated_at = now()
     WHERE id = $1 AND attributed_at = $2::timestamptz
     RETURNING ${INSTALL_COLUMNS}`,
    [
      input.id,
      input.previousAttributedAt.toISOString(),
      ...attributionValues(a),
      input.at.toISOString(),
      input.appVersion,
      input.osVersion,
    ],
  );
  return rows[0] ?? null;
}

/** Replaces the install's push token; null when the device has no install for this app. */
export async function setPushToken(db: Queryable, appId: string, deviceIdHash: string, token: string): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    'UPDATE installs SET push_token = $3, updated_at = now() WHERE app_id = $1 AND device_id_hash = $2 RETURNING id',
    [appId, deviceIdHash, token],
  );
  return rows[0]?.id ?? null;
}
