import type { Db } from '../../src/db/db';
import { newId } from '../../src/shared/ids';
import type { IpHasher } from '../../src/shared/crypto/ip-hash';
import { insertApp } from './fixtures';

/** An app with its SDK key; settings go in as text cast to jsonb so both drivers store an object. */
export async function sdkApp(db: Db, orgId: string, input: { platform?: string; reattributionDays?: number; settings?: Record<string, unknown> } = {}) {
  const app = await insertApp(db, orgId, { platform: input.platform ?? 'android', reattributionDays: input.reattributionDays });
  await db.query('UPDATE apps SET settings = $2::text::jsonb WHERE id = $1', [app.appId, JSON.stringify(input.settings ?? {})]);
  return app;
}

/** An impression as the /i pixel stores it: hashes only, never the address. */
export async function insertImpression(
  db: Db,
  ipHasher: IpHasher,
  input: { orgId: string; ip: string; createdAt: Date; campaignId?: string | null; appId?: string | null },
): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO impressions (id, org_id, campaign_id, app_id, ip_day_hash, household_hash, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz)`,
    [id, input.orgId, input.campaignId ?? null, input.appId ?? null, ipHasher.ipDay(input.ip, input.createdAt), ipHasher.household(input.ip), input.createdAt.toISOString()],
  );
  return id;
}

export const minutesAgo = (base: Date, minutes: number) => new Date(base.getTime() - minutes * 60_000);
export const hoursAgo = (base: Date, hours: number) => minutesAgo(base, hours * 60);
export const daysAgo = (base: Date, days: number) => minutesAgo(base, days * 24 * 60);

/** A 64-hex device id the SDK would send (the SHA-256 of a platform id). */
export const hashedDeviceId = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('');
