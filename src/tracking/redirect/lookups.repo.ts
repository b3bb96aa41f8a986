import type { Db, Queryable } from '../../db/db';

/** SQL of the redirect's caches: link and campaign lookups by key. */

export interface LinkRow {
  id: string;
  org_id: string;
  slug: string;
  domain: string;
  kind: string;
  status: string;
  campaign_id: string | null;
  destination: string | null;
  /** jsonb: an array of host patterns, or null (src/tracking/redirect/landing-hosts.ts). */
  allowed_landing_hosts: unknown;
  /** On the tracking host, or on a custom domain the link's organization holds and has verified. */
  domain_verified: boolean;
  /** Smart links (src/tracking/smartlinks/rules): jsonb as stored, to be read with parseRules. */
  rules: unknown;
  pass_params: boolean;
  /** jsonb: {title?, description?, image?} or null (src/links/link-preview.ts). */
  preview: unknown;
  expires_at: Date | null;
  click_cap: number | null;
}

const LINK_COLUMNS = `id, org_id, slug, domain, kind, status, campaign_id, destination, allowed_landing_hosts, rules, pass_params, preview,
  expires_at, click_cap,
  (domain = '' OR EXISTS (SELECT 1 FROM link_domains d WHERE d.domain = links.domain AND d.org_id = links.org_id AND d.verified_at IS NOT NULL)) AS domain_verified`;

export async function findLinkByKey(db: Queryable, domain: string, slug: string): Promise<LinkRow | null> {
  const rows = await db.query<LinkRow>(`SELECT ${LINK_COLUMNS} FROM links WHERE domain = $1 AND slug = $2`, [domain, slug]);
  return rows[0] ?? null;
}

export async function findLinkById(db: Queryable, id: string): Promise<LinkRow | null> {
  const rows = await db.query<LinkRow>(`SELECT ${LINK_COLUMNS} FROM links WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** Walks every (domain, slug) in pages, so a large links table never sits in memory at once. */
export async function forEachLinkKey(db: Db, onKey: (domain: string, slug: string) => void, pageSize = 10_000): Promise<number> {
  let after = '';
  let total = 0;
  for (;;) {
    const rows = await db.query<{ id: string; domain: string; slug: string }>(
      'SELECT id, domain, slug FROM links WHERE id > $1 ORDER BY id LIMIT $2',
      [after, pageSize],
    );
    for (const row of rows) onKey(row.domain, row.slug);
    total += rows.length;
    if (rows.length < pageSize) return total;
    after = rows[rows.length - 1]!.id;
  }
}

export interface CampaignRow {
  id: string;
  org_id: string;
  app_id: string | null;
}

/**
 * A campaign by its id, or else by its ad-platform external id. External ids are unique per
 * organization only; when several organizations use the same one the pixel cannot tell
 * whose it is, so it answers no campaign (see docs/tracking.md).
 */
export async function findCampaignForPixel(db: Queryable, idOrExternalId: string): Promise<CampaignRow | null> {
  const byId = await db.query<CampaignRow>('SELECT id, org_id, app_id FROM campaigns WHERE id = $1', [idOrExternalId]);
  if (byId[0]) return byId[0];
  const byExternal = await db.query<CampaignRow>(
    'SELECT id, org_id, app_id FROM campaigns WHERE external_id = $1 ORDER BY id LIMIT 2',
    [idOrExternalId],
  );
  return byExternal.length === 1 ? byExternal[0]! : null;
}

