import type { ApiKeyPrincipal } from '../auth/api-keys';
import { recordAudit } from '../auth/audit';
import type { Db } from '../db/db';
import { validationError } from '../http/errors';
import type { IpIntel } from '../ipintel/ip-intel';
import { newId, type Clock } from '../shared/ids';
import type { IpHasher } from '../shared/crypto/ip-hash';
import type { ImpressionRecord } from '../tracking/tracking.model';
import { resolveCampaigns } from './campaign-refs';
import type { Impression, ImpressionsResult } from './impressions.model';
import { findOrgApps, insertImportedImpressions } from './impressions.repo';
import { instantOf } from '../http/timestamp-field';

export interface ImpressionImportDeps {
  db: Db;
  clock: Clock;
  ipHasher: IpHasher;
  ipIntel: Pick<IpIntel, 'country'>;
}

export const UNKNOWN_APP = 'is not an app of this organization';

/**
 * POST /api/v1/impressions: every row is checked first (one bad row stores nothing), then the
 * batch goes in as one statement with its audit row. The address is hashed exactly as the /i
 * pixel hashes it, with the impression's UTC day, and is never stored (docs/growth-imports.md).
 */
export async function importImpressions(deps: ImpressionImportDeps, principal: ApiKeyPrincipal, rows: readonly Impression[]): Promise<ImpressionsResult> {
  const { db, ipHasher, ipIntel } = deps;
  const now = deps.clock();
  // A partner's clock running ahead must not date an impression in the future.
  const times = rows.map((row, index) => {
    if (row.ts === undefined) return now;
    const at = instantOf(row.ts, `impressions.${index}.ts`);
    return at.getTime() > now.getTime() ? now : at;
  });
  const apps = await findOrgApps(db, principal.orgId, [...new Set(rows.flatMap((row) => (row.app_id === undefined ? [] : [row.app_id])))]);
  const problems: Record<string, string[]> = {};
  rows.forEach((row, index) => {
    if (row.app_id !== undefined && !apps.has(row.app_id)) problems[`impressions.${index}.app_id`] = [UNKNOWN_APP];
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);

  const campaigns = await resolveCampaigns(db, principal.orgId, rows);
  const records = rows.map((row, index): ImpressionRecord => {
    const at = times[index]!;
    const campaign = campaigns[index];
    return {
      id: newId(),
      org_id: principal.orgId,
      campaign_id: campaign?.id ?? null,
      app_id: row.app_id ?? campaign?.app_id ?? null,
      creative_id: row.creative_id ?? null,
      placement: row.placement ?? null,
      partner: row.partner ?? null,
      ip_day_hash: ipHasher.ipDay(row.ip, at),
      household_hash: ipHasher.household(row.ip),
      user_agent: row.user_agent ?? null,
      os: row.os ?? null,
      device_type: row.device_type ?? null,
      country: row.country?.toUpperCase() ?? ipIntel.country(row.ip),
      source: 'import',
      created_at: at.toISOString(),
    };
  });
  const withoutCampaign = campaigns.filter((campaign) => campaign === null).length;
  await db.transaction(async (tx) => {
    await insertImportedImpressions(tx, records);
    await recordAudit(tx, { orgId: principal.orgId, apiKeyId: principal.keyId }, {
      action: 'import',
      entity: 'impression',
      detail: { accepted: records.length, without_campaign: withoutCampaign },
    });
  });
  return { accepted: records.length };
}
