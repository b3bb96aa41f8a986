import type { Queryable } from '../../src/db/db';
import { newId } from '../../src/shared/ids';

/** Rows of what the reports read, written straight into storage as their modules would store them. */

export async function insertInstall(
  db: Queryable,
  row: { orgId: string; appId: string; campaignId?: string | null; method?: string; at: string; reattribution?: boolean },
): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO installs (id, org_id, app_id, device_id_hash, platform, installed_at, attribution_method, campaign_id, is_reattribution, attributed_at)
     VALUES ($1, $2, $3, $4, 'android', $5::timestamptz, $6, $7, $8, $5::timestamptz)`,
    [id, row.orgId, row.appId, `device-${id}`, row.at, row.method ?? (row.campaignId ? 'CLICK_ID' : 'ORGANIC'), row.campaignId ?? null, row.reattribution ?? false],
  );
  return id;
}

export async function insertConversion(
  db: Queryable,
  row: { orgId: string; campaignId?: string | null; event?: string; value?: number | null; matched?: boolean; at: string },
): Promise<void> {
  await db.query(
    `INSERT INTO conversions (id, org_id, campaign_id, event_name, value, currency, source, matched, created_at)
     VALUES ($1, $2, $3, $4, $5, 'USD', 'api', $6, $7::timestamptz)`,
    [newId(), row.orgId, row.campaignId ?? null, row.event ?? 'conversion', row.value ?? null, row.matched ?? row.campaignId !== undefined, row.at],
  );
}

export async function insertCost(db: Queryable, row: { orgId: string; campaignId: string; day: string; spend: number }): Promise<void> {
  await db.query('INSERT INTO costs (id, org_id, campaign_id, day, spend) VALUES ($1, $2, $3, $4::date, $5)', [newId(), row.orgId, row.campaignId, row.day, row.spend]);
}

export async function insertEvent(
  db: Queryable,
  row: { orgId: string; appId: string; installId: string | null; name: string; value: number | null; at: string },
): Promise<void> {
  await db.query(
    `INSERT INTO events (id, org_id, app_id, install_id, device_id_hash, name, value, currency, occurred_at)
     VALUES ($1, $2, $3, $4, 'device', $5, $6, 'USD', $7::timestamptz)`,
    [newId(), row.orgId, row.appId, row.installId, row.name, row.value, row.at],
  );
}
