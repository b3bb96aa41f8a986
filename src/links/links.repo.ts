import type { Queryable } from '../db/db';
import { exactTimestamp, keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import { LINK_DOMAIN_STATUS } from '../domains/domains.repo';
import type { RuleSet } from '../tracking/smartlinks/rules/rules.model';
import type { LinkFilters, LinkKind, LinkRow, LinkSort, LinkStatus, LinkUpdate } from './links.model';

const COLUMNS = `id, org_id, slug, domain, kind, campaign_id, destination, deep_link_path, status, expires_at, click_cap, rules,
  pass_params, preview, allowed_landing_hosts, created_at, updated_at, ${LINK_DOMAIN_STATUS}`;

export interface NewLink {
  id: string;
  orgId: string;
  slug: string;
  domain: string;
  kind: LinkKind;
  campaignId: string | null;
  destination: string | null;
  deepLinkPath: string | null;
  status: string;
  expiresAt: Date | null;
  clickCap: number | null;
  rules: unknown;
  passParams: boolean;
  preview: unknown;
  allowedLandingHosts: string[] | null;
}

/** jsonb goes in as text and is cast by the server: the same bytes on both drivers. */
function jsonParam(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** Inserts unless (domain, slug) is taken; undefined then, and nothing was written. */
export async function insertLink(tx: Queryable, link: NewLink): Promise<LinkRow | undefined> {
  const rows = await tx.query<LinkRow>(
    `INSERT INTO links (id, org_id, slug, domain, kind, campaign_id, destination, deep_link_path, status, expires_at, click_cap, rules, allowed_landing_hosts,
       pass_params, preview)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz, $11, $12::text::jsonb, $13::text::jsonb, $14, $15::text::jsonb)
     ON CONFLICT (domain, slug) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      link.id,
      link.orgId,
      link.slug,
      link.domain,
      link.kind,
      link.campaignId,
      link.destination,
      link.deepLinkPath,
      link.status,
      link.expiresAt?.toISOString() ?? null,
      link.clickCap,
      jsonParam(link.rules),
      jsonParam(link.allowedLandingHosts),
      link.passParams,
      jsonParam(link.preview),
    ],
  );
  return rows[0];
}

export async function findLink(db: Queryable, orgId: string, id: string): Promise<LinkRow | undefined> {
  const rows = await db.query<LinkRow>(`SELECT ${COLUMNS} FROM links WHERE id = $1 AND org_id = $2`, [id, orgId]);
  return rows[0];
}

/** The organization's link with this slug; on the tracking host first when custom domains have it too. */
export async function findLinkBySlug(db: Queryable, orgId: string, slug: string): Promise<LinkRow | undefined> {
  const rows = await db.query<LinkRow>(`SELECT ${COLUMNS} FROM links WHERE org_id = $1 AND slug = $2 ORDER BY (domain = '') DESC, created_at, id LIMIT 1`, [orgId, slug]);
  return rows[0];
}

/** Slugs of the organization's links among `ids` (the analytics mirror holds no links). */
export async function selectLinkSlugs(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; slug: string }>('SELECT id, slug FROM links WHERE org_id = $1 AND id = ANY($2::text[])', [orgId, ids]);
  return new Map(rows.map((row) => [row.id, row.slug]));
}

/**
 * Each order's keyset; each has its own list name, so a cursor of one order is refused by another.
 * The cursor carries the last link's sort key itself (its creation time to the microsecond, or
 * its slug, and its id), not only its id: a link deleted after its page was shown still leads to
 * the next page.
 */
const byValues = (list: string, column: 'created_at' | 'slug', direction: 'asc' | 'desc'): Keyset => ({
  kind: 'values',
  list,
  columns: [
    { column, cast: column === 'created_at' ? 'timestamptz' : 'text', direction },
    { column: 'id', cast: 'text', direction },
  ],
});

export const LINK_KEYSETS: Record<LinkSort, Keyset> = {
  '-created_at': byValues('links', 'created_at', 'desc'),
  created_at: byValues('links:created_at', 'created_at', 'asc'),
  slug: byValues('links:slug', 'slug', 'asc'),
  '-slug': byValues('links:-slug', 'slug', 'desc'),
};

/** The cursor's key of a listed link in `sort`'s order (`created_key` is its exact creation time). */
export const linkKeyOf = (row: LinkRow & { created_key: string }, sort: LinkSort): string[] => [sort.endsWith('slug') ? row.slug : row.created_key, row.id];

/** `%text%` for ILIKE, with the pattern characters of the text itself escaped. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A page of the organization's links in `sort`'s order. One fixed statement: an absent filter
 * is a null parameter. The search matches the slug, the destination, the preview title and the
 * campaign's name, case-insensitively.
 */
export function listLinks(db: Queryable, orgId: string, page: PageRequest, filters: LinkFilters = {}, sort: LinkSort = '-created_at'): Promise<(LinkRow & { created_key: string })[]> {
  const keyset = LINK_KEYSETS[sort];
  const after = keysetCondition(keyset, page.after, 8);
  return db.query<LinkRow & { created_key: string }>(
    `SELECT ${COLUMNS}, ${exactTimestamp('created_at')} AS created_key FROM links
      WHERE org_id = $1
        AND ($3::text IS NULL OR kind = $3::text)
        AND ($4::text IS NULL OR status = $4::text)
        AND ($5::text IS NULL OR campaign_id = $5::text)
        AND ($6::text IS NULL OR domain = $6::text)
        AND ($7::text IS NULL OR slug ILIKE $7::text OR destination ILIKE $7::text OR preview->>'title' ILIKE $7::text
             OR campaign_id IN (SELECT c.id FROM campaigns c WHERE c.org_id = $1 AND c.name ILIKE $7::text))
        AND ${after.sql}
      ORDER BY ${keysetOrder(keyset)} LIMIT $2`,
    [orgId, page.limit, filters.kind ?? null, filters.status ?? null, filters.campaignId ?? null, filters.domain ?? null, filters.search === undefined ? null : containing(filters.search), ...after.params],
  );
}

/** The custom domains the organization's links are on ('' is the tracking host), for the links page's filter. */
export async function selectLinkDomains(db: Queryable, orgId: string): Promise<string[]> {
  const rows = await db.query<{ domain: string }>('SELECT DISTINCT domain FROM links WHERE org_id = $1 ORDER BY domain', [orgId]);
  return rows.map((row) => row.domain);
}

/**
 * One fixed statement for every PATCH: a "present" flag per column, so absent fields keep their
 * value. Raises a unique violation on links_domain_slug_key when the new domain has this slug.
 */
export async function updateLink(tx: Queryable, orgId: string, id: string, update: LinkUpdate): Promise<LinkRow | undefined> {
  const has = (key: keyof LinkUpdate) => key in update;
  const rows = await tx.query<LinkRow>(
    `UPDATE links SET
       destination = CASE WHEN $3::boolean THEN $4::text ELSE destination END,
       domain = CASE WHEN $5::boolean THEN $6::text ELSE domain END,
       status = CASE WHEN $7::boolean THEN $8::text ELSE status END,
       expires_at = CASE WHEN $9::boolean THEN $10::timestamptz ELSE expires_at END,
       click_cap = CASE WHEN $11::boolean THEN $12::integer ELSE click_cap END,
       rules = CASE WHEN $13::boolean THEN $14::text::jsonb ELSE rules END,
       deep_link_path = CASE WHEN $15::boolean THEN $16::text ELSE deep_link_path END,
       allowed_landing_hosts = CASE WHEN $17::boolean THEN $18::text::jsonb ELSE allowed_landing_hosts END,
       pass_params = CASE WHEN $19::boolean THEN $20::boolean ELSE pass_params END,
       preview = CASE WHEN $21::boolean THEN $22::text::jsonb ELSE preview END,
       updated_at = now()
     WHERE id = $1 AND org_id = $2
     RETURNING ${COLUMNS}`,
    [
      id,
      orgId,
      has('destination'),
      update.destination ?? null,
      has('domain'),
      update.domain ?? '',
      has('status'),
      update.status ?? null,
      has('expires_at'),
      update.expires_at?.toISOString() ?? null,
      has('click_cap'),
      update.click_cap ?? null,
      has('rules'),
      jsonParam(update.rules),
      has('deep_link_path'),
      update.deep_link_path ?? null,
      has('allowed_landing_hosts'),
      jsonParam(update.allowed_landing_hosts),
      has('pass_params'),
      update.pass_params ?? false,
      has('preview'),
      jsonParam(update.preview),
    ],
  );
  return rows[0];
}

export { isUniqueViolation } from '../db/errors';

/** Deletes the organization's link: what it was, or undefined when it has none with this id. Its clicks stay (clicks hold no key to links). */
export async function deleteLink(tx: Queryable, orgId: string, id: string): Promise<Pick<LinkRow, 'slug' | 'domain' | 'kind'> | undefined> {
  const rows = await tx.query<Pick<LinkRow, 'slug' | 'domain' | 'kind'>>('DELETE FROM links WHERE id = $1 AND org_id = $2 RETURNING slug, domain, kind', [id, orgId]);
  return rows[0];
}

/**
 * Full replacements of one field (the MCP management tools): the row is written only when the
 * value differs, so a repeat leaves it, updated_at included, as it was. undefined when nothing
 * was written: no such link, or (rules) not a smart link, or the value was already this.
 */
export async function replaceRulesIfChanged(tx: Queryable, orgId: string, id: string, rules: RuleSet | null): Promise<LinkRow | undefined> {
  const rows = await tx.query<LinkRow>(
    `UPDATE links SET rules = $3::text::jsonb, updated_at = now()
      WHERE id = $1 AND org_id = $2 AND kind = 'smart' AND rules IS DISTINCT FROM $3::text::jsonb
     RETURNING ${COLUMNS}`,
    [id, orgId, jsonParam(rules)],
  );
  return rows[0];
}

export async function replaceStatusIfChanged(tx: Queryable, orgId: string, id: string, status: LinkStatus): Promise<LinkRow | undefined> {
  const rows = await tx.query<LinkRow>(
    `UPDATE links SET status = $3, updated_at = now() WHERE id = $1 AND org_id = $2 AND status IS DISTINCT FROM $3 RETURNING ${COLUMNS}`,
    [id, orgId, status],
  );
  return rows[0];
}

export const LINKS_DOMAIN_SLUG_KEY = 'links_domain_slug_key';
