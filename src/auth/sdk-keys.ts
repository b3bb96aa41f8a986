import type { Queryable } from '../db/db';
import { badRequest } from '../http/errors';
import { randomToken, sha256Hex } from '../shared/crypto/secrets';

export const SDK_KEY_PATTERN = /^sk_[A-Za-z0-9]{32}$/;

export function generateSdkKey(): { key: string; hash: string } {
  const key = `sk_${randomToken(32)}`;
  return { key, hash: sha256Hex(key) };
}

/** The app an SDK key belongs to: what every SDK endpoint needs to know about its caller. */
export interface SdkApp {
  appId: string;
  orgId: string;
  platform: string;
  reattributionDays: number;
  settings: Record<string, unknown>;
}

/** The app as authentication answers it: with its SDK key's own limit (src/auth/key-rate-limit.ts), null for none. */
export interface AuthenticatedSdkApp extends SdkApp {
  rateLimitPerMinute: number | null;
}

/**
 * Looks the app up by the SHA-256 of the presented key (an index lookup on a digest the
 * caller cannot steer, so its timing reveals nothing about stored keys).
 */
export async function authenticateSdkKey(db: Queryable, presented: string | undefined | null): Promise<AuthenticatedSdkApp | null> {
  if (!presented || !SDK_KEY_PATTERN.test(presented)) return null;
  const rows = await db.query<{ id: string; org_id: string; platform: string; reattribution_days: number; settings: Record<string, unknown>; rate_limit_per_minute: number | null }>(
    'SELECT id, org_id, platform, reattribution_days, settings, rate_limit_per_minute FROM apps WHERE sdk_key_hash = $1 AND deleted_at IS NULL',
    [sha256Hex(presented)],
  );
  const row = rows[0];
  if (!row) return null;
  return { appId: row.id, orgId: row.org_id, platform: row.platform, reattributionDays: row.reattribution_days, settings: row.settings ?? {}, rateLimitPerMinute: row.rate_limit_per_minute };
}

/** An SDK key is bound to its app's platform: used on another platform it answers 400 (spec, Authentication rule 3). */
export function assertSdkPlatform(app: SdkApp, platform: string | undefined): void {
  if (platform !== undefined && platform !== app.platform) {
    throw badRequest(`this SDK key belongs to a ${app.platform} app, not ${platform}`);
  }
}
