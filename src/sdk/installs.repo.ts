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
  /** Set while the uninstall checker finds the app gone (docs/uninstalls.md). */
  uninstalled_at: Date | null;
}

const INSTALL_COLUMNS = 'id, attribution_method, campaign_id, click_id, deep_link_path, is_reattribution, installed_at, attributed_at, uninstalled_at';

/*
 * Lookups on installs are planned on every call (QueryOptions.planEachCall): the table starts
 * empty, and a plan cached while it held a page would scan every install of the app later.
 */
export async function findInstallByDevice(db: Queryable, appId: string, deviceIdHash: string): Promise<InstallRow | null> {
  const rows = await db.query<InstallRow>(`SELECT ${INSTALL_COLUMNS} FROM installs WHERE app_id = $1 AND device_id_hash = $2`, [appId, deviceIdHash], {
    planEachCall: true,
  });
  return rows[0] ?? null;
}

export async function findInstallById(db: Queryable, appId: string, installId: string): Promise<InstallRow | null> {
  const rows = await db.query<InstallRow>(`SELECT ${INSTALL_COLUMNS} FROM installs WHERE app_id = $1 AND id = $2`, [appId, installId], { planEachCall: true });
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
  /** The region of the request's address (docs/growth-imports.md, "Regions"). */
  region: string | null;
  /** The country of the request's address (ISO 3166-1 alpha-2), for cohorts by country (docs/reports.md). */
  country: string | null;
}

/** The columns of one new install, as the batched insert reads them from JSON. */
const NEW_INSTALL_RECORD = `n int, id text, org_id text, app_id text, device_id_hash text, platform text, os_version text,
  app_version text, sdk_version text, locale text, timezone text, limit_ad_tracking boolean, installed_at timestamptz,
  attribution_method text, campaign_id text, click_id text, impression_id text, deep_link_path text, match_evidence jsonb,
  confidence real, ip_day_hash text, household_hash text, region text, country text`;

/**
 * Inserts installs in ONE statement (one JSON parameter, so the text stays prepared), each unless
 * its app already has one for its device. Resolves, per install and in order, to the stored row,
 * or null when another call for the same device won the race.
 */
export async function insertInstalls(db: Queryable, installs: readonly NewInstall[]): Promise<(InstallRow | null)[]> {
  const records = installs.map((install, n) => {
    const a = install.attribution;
    return {
      n,
      id: install.id,
      org_id: install.orgId,
      app_id: install.appId,
      device_id_hash: install.deviceIdHash,
      platform: install.platform,
      os_version: install.osVersion,
      app_version: install.appVersion,
      sdk_version: install.sdkVersion,
      locale: install.locale,
      timezone: install.timezone,
      limit_ad_tracking: install.limitAdTracking,
      installed_at: install.installedAt.toISOString(),
      attribution_method: a.method,
      campaign_id: a.campaignId,
      click_id: a.clickId,
      impression_id: a.impressionId,
      deep_link_path: a.deepLinkPath,
      match_evidence: a.evidence,
      confidence: a.confidence,
      ip_day_hash: install.ipDayHash,
      household_hash: install.householdHash,
      region: install.region,
      country: install.country,
    };
  });
  const rows = await db.query<InstallRow>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${NEW_INSTALL_RECORD})
     )
     INSERT INTO installs (id, org_id, app_id, device_id_hash, platform, os_version, app_version, sdk_version, locale, timezone,
       limit_ad_tracking, installed_at, attribution_method, campaign_id, click_id, impression_id, deep_link_path, match_evidence,
       confidence, is_reattribution, attributed_at, ip_day_hash, household_hash, region, country)
     SELECT id, org_id, app_id, device_id_hash, platform, os_version, app_version, sdk_version, locale, timezone,
       limit_ad_tracking, installed_at, attribution_method, campaign_id, click_id, impression_id, deep_link_path, match_evidence,
       confidence, false, installed_at, ip_day_hash, household_hash, region, country
       FROM input ORDER BY n
     ON CONFLICT (app_id, device_id_hash) DO NOTHING
     RETURNING ${INSTALL_COLUMNS}`,
    [JSON.stringify(records)],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return installs.map((install) => byId.get(install.id) ?? null);
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

/**
 * Replaces the install's push token; null when the device has no install for this app. A running
 * app sent it, so an uninstall mark is cleared with it.
 */
export async function setPushToken(db: Queryable, appId: string, deviceIdHash: string, token: string): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    'UPDATE installs SET push_token = $3, uninstalled_at = NULL, updated_at = now() WHERE app_id = $1 AND device_id_hash = $2 RETURNING id',
    [appId, deviceIdHash, token],
  );
  return rows[0]?.id ?? null;
}

/** The app was seen on the device again (an install or open call): the uninstall mark goes. */
export async function clearUninstalled(db: Queryable, installId: string): Promise<void> {
  await db.query('UPDATE installs SET uninstalled_at = NULL, updated_at = now() WHERE id = $1 AND uninstalled_at IS NOT NULL', [installId]);
}
