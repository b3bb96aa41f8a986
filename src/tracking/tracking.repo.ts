import { copyText } from '../db/copy-text';
import type { Db, Queryable } from '../db/db';
import { errorCode } from '../db/errors';
import type { ClickRecord } from './click.model';
import { CLICK_COLUMNS, IMPRESSION_COLUMNS, type ImpressionRecord } from './tracking.model';

/** SQL of the tracking host: link and campaign lookups for the caches, and the batcher's inserts. */

export interface LinkRow {
  id: string;
  org_id: string;
  slug: string;
  domain: string;
  kind: string;
  status: string;
  campaign_id: string | null;
  destination: string | null;
  /** jsonb: an array of host patterns, or null (src/links/landing-hosts.ts). */
  allowed_landing_hosts: unknown;
  /** On the tracking host, or on a custom domain the link's organization holds and has verified. */
  domain_verified: boolean;
}

const LINK_COLUMNS = `id, org_id, slug, domain, kind, status, campaign_id, destination, allowed_landing_hosts,
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

/**
 * Column types of the clicks and impressions tables, for the recordset the batcher inserts.
 * Typed by the column lists, so a column added to a record must be given its type here too.
 */
const CLICK_COLUMN_TYPES: Record<(typeof CLICK_COLUMNS)[number], string> = {
  id: 'text', org_id: 'text', link_id: 'text', campaign_id: 'text', created_at: 'timestamptz', gclid: 'text',
  gbraid: 'text', wbraid: 'text', campaign_ext_id: 'text', ad_group_ext_id: 'text', creative_id: 'text',
  keyword: 'text', match_type: 'text', network: 'text', device: 'text', placement: 'text', target_id: 'text',
  loc_physical_ms: 'text', loc_interest_ms: 'text', ad_position: 'text', next_hop_url: 'text',
  transparent_param_present: 'boolean', force_transparent: 'boolean', is_bot: 'boolean', latency_ms: 'integer',
  ip: 'text', ip_day_hash: 'text', household_hash: 'text', user_agent: 'text', referer: 'text', country: 'text',
  os_family: 'text', os_version: 'text', device_type: 'text', drop_reason: 'text', params: 'jsonb',
};
const IMPRESSION_COLUMN_TYPES: Record<(typeof IMPRESSION_COLUMNS)[number], string> = {
  id: 'text', org_id: 'text', campaign_id: 'text', app_id: 'text', creative_id: 'text', placement: 'text',
  partner: 'text', ip_day_hash: 'text', household_hash: 'text', user_agent: 'text', os: 'text', device_type: 'text',
  country: 'text', source: 'text', created_at: 'timestamptz',
};

/**
 * The INSERT that skips records already stored, for batches COPY cannot take (copyOrSkipStored):
 * any number of records as a single JSON array parameter, so the statement text never changes
 * (prepared once per connection), and Postgres unpacks them with json_to_recordset.
 */
function recordsetInsert(table: string, types: Record<string, string>): string {
  const columns = Object.keys(types);
  const shape = columns.map((column) => `${column} ${types[column]}`).join(', ');
  return `INSERT INTO ${table} (${columns.join(', ')})
    SELECT ${columns.map((column) => `r.${column}`).join(', ')} FROM json_to_recordset($1::json) AS r(${shape})
    ON CONFLICT (id) DO NOTHING`;
}

const INSERT_CLICKS = recordsetInsert('clicks', CLICK_COLUMN_TYPES);
const INSERT_IMPRESSIONS = recordsetInsert('impressions', IMPRESSION_COLUMN_TYPES);

/** Stores enriched clicks; idempotent on the click id (see copyOrSkipStored). */
export async function insertClicks(db: Db, clicks: readonly ClickRecord[]): Promise<void> {
  if (clicks.length > 0) await copyOrSkipStored(db, 'clicks', CLICK_COLUMNS, INSERT_CLICKS, clicks);
}

/** Stores impressions; idempotent on the impression id (see copyOrSkipStored). */
export async function insertImpressions(db: Db, impressions: readonly ImpressionRecord[]): Promise<void> {
  if (impressions.length > 0) await copyOrSkipStored(db, 'impressions', IMPRESSION_COLUMNS, INSERT_IMPRESSIONS, impressions);
}

const UNIQUE_VIOLATION = '23505';

/**
 * The records go in by COPY, cheaper per row than an INSERT. COPY cannot skip a stored row (a
 * replayed journal, a retried batch): it then fails whole with a unique violation, storing
 * nothing, and the same records go again through the recordset INSERT, which skips them.
 */
async function copyOrSkipStored<T extends object>(db: Db, table: string, columns: readonly string[], insert: string, records: readonly T[]): Promise<void> {
  try {
    await db.copyFrom(table, columns, copyText(records as readonly Record<string, unknown>[], columns));
  } catch (error) {
    if (errorCode(error) !== UNIQUE_VIOLATION) throw error;
    await db.query(insert, [JSON.stringify(records)]);
  }
}
