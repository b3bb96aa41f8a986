import type { Db } from '../../src/db/db';
import { issueApiKey } from '../../src/auth/api-keys';
import { generateSdkKey } from '../../src/auth/sdk-keys';
import { createOrganization } from '../../src/auth/accounts.service';
import { newId } from '../../src/shared/ids';

/** An organization with one API key; `auth` is ready to spread into a request's headers. */
export async function orgWithKey(db: Db, name = 'Org') {
  const orgId = await createOrganization(db, `${name} ${newId()}`);
  const key = await issueApiKey(db, { orgId, name: 'test' });
  return { orgId, apiKey: key.api_key, keyId: key.id, auth: { authorization: `Bearer ${key.api_key}` } };
}

/** Rows made directly in storage, for tests of modules that read them (no HTTP round trip). */
export async function insertApp(db: Db, orgId: string, input: { platform?: string; reattributionDays?: number; settings?: Record<string, unknown> } = {}) {
  const id = newId();
  const sdk = generateSdkKey();
  await db.query(
    `INSERT INTO apps (id, org_id, name, platform, sdk_key, sdk_key_hash, reattribution_days, settings)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
    [id, orgId, 'App', input.platform ?? 'android', sdk.key, sdk.hash, input.reattributionDays ?? 90, JSON.stringify(input.settings ?? {})],
  );
  return { appId: id, sdkKey: sdk.key };
}

/**
 * Marks `domain` as held and verified by the organization, as a passed DNS check would
 * (src/domains/), so links bound to it serve under DOMAIN_VERIFICATION=dns.
 */
export async function verifiedDomain(db: Db, orgId: string, domain: string) {
  await db.query(
    `INSERT INTO link_domains (domain, org_id, verified_at, checked_at) VALUES ($1, $2, now(), now())
     ON CONFLICT (domain) DO UPDATE SET org_id = excluded.org_id, verified_at = excluded.verified_at, checked_at = excluded.checked_at`,
    [domain, orgId],
  );
}

export async function insertCampaign(db: Db, orgId: string, input: { externalId?: string; appId?: string } = {}) {
  const id = newId();
  await db.query('INSERT INTO campaigns (id, org_id, app_id, name, external_id) VALUES ($1, $2, $3, $4, $5)', [
    id,
    orgId,
    input.appId ?? null,
    'Campaign',
    input.externalId ?? null,
  ]);
  return { campaignId: id };
}

export async function insertLink(
  db: Db,
  orgId: string,
  input: { slug?: string; domain?: string; destination?: string; campaignId?: string; status?: string; deepLinkPath?: string; kind?: string } = {},
) {
  const id = newId();
  const slug = input.slug ?? `s${newId().slice(-10).toLowerCase()}`;
  await db.query(
    `INSERT INTO links (id, org_id, slug, domain, kind, campaign_id, destination, status, deep_link_path)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, orgId, slug, input.domain ?? '', input.kind ?? 'tracking', input.campaignId ?? null, input.destination ?? 'https://shop.example.com/landing', input.status ?? 'active', input.deepLinkPath ?? null],
  );
  return { linkId: id, slug };
}
