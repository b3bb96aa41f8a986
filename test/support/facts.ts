import type { Queryable } from '../../src/db/db';
import { newId } from '../../src/shared/ids';
import { hashedDeviceId } from './sdk-fixtures';

/**
 * Installs, conversions, in-app events and costs written straight into storage, as their
 * endpoints store them, for tests of what reads them (the campaigns report, exports, realtime).
 */

const iso = (at: Date | string) => new Date(at).toISOString();

export async function insertInstall(
  db: Queryable,
  input: { orgId: string; appId: string; installedAt: Date | string; campaignId?: string | null; deviceIdHash?: string; createdAt?: Date | string; clickId?: string | null },
): Promise<{ installId: string; deviceIdHash: string }> {
  const id = newId();
  const deviceIdHash = input.deviceIdHash ?? hashedDeviceId();
  const installedAt = iso(input.installedAt);
  await db.query(
    `INSERT INTO installs (id, org_id, app_id, device_id_hash, platform, installed_at, attribution_method, campaign_id, attributed_at, created_at, click_id)
     VALUES ($1, $2, $3, $4, 'android', $5::timestamptz, $6, $7, $5::timestamptz, $8::timestamptz, $9)`,
    [id, input.orgId, input.appId, deviceIdHash, installedAt, input.campaignId || input.clickId ? 'CLICK_ID' : 'ORGANIC', input.campaignId ?? null, iso(input.createdAt ?? installedAt), input.clickId ?? null],
  );
  return { installId: id, deviceIdHash };
}

export async function insertConversion(
  db: Queryable,
  input: { orgId: string; createdAt: Date | string; campaignId?: string | null; value?: number | null; event?: string; clickId?: string | null; currency?: string | null; orderId?: string | null },
): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO conversions (id, org_id, click_id, campaign_id, event_name, value, currency, order_id, source, matched, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'api', $9, $10::timestamptz, $10::timestamptz)`,
    [
      id,
      input.orgId,
      input.clickId ?? null,
      input.campaignId ?? null,
      input.event ?? 'conversion',
      input.value ?? null,
      input.currency ?? null,
      input.orderId ?? null,
      input.clickId !== undefined && input.clickId !== null,
      iso(input.createdAt),
    ],
  );
  return id;
}

export async function insertEvent(
  db: Queryable,
  input: { orgId: string; appId: string; deviceIdHash: string; name: string; occurredAt: Date | string; value?: number | null; installId?: string | null; currency?: string | null },
): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO events (id, org_id, app_id, install_id, device_id_hash, name, value, currency, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz)`,
    [id, input.orgId, input.appId, input.installId ?? null, input.deviceIdHash, input.name, input.value ?? null, input.currency ?? null, iso(input.occurredAt)],
  );
  return id;
}

export async function insertCost(db: Queryable, input: { orgId: string; campaignId: string; day: string; spend: number; currency?: string }): Promise<void> {
  await db.query('INSERT INTO costs (id, org_id, campaign_id, day, spend, currency) VALUES ($1, $2, $3, $4::date, $5, $6)', [
    newId(),
    input.orgId,
    input.campaignId,
    input.day,
    input.spend,
    input.currency ?? 'USD',
  ]);
}
