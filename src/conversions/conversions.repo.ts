import type { Queryable } from '../db/db';
import type { ConversionRow, ConversionSource } from './conversions.model';

export interface MatchedClick {
  id: string;
  campaignId: string | null;
}

/** A click may attribute only when no ingestion step dropped it and it is no verified bot. */
const ATTRIBUTABLE = 'drop_reason IS NULL AND NOT is_bot';

/**
 * The click with this id in the organization. `found` is true when the row exists at all
 * (even if dropped), so a caller waiting for a fresh click knows it can stop waiting.
 */
export async function findAttributableClick(db: Queryable, orgId: string, clickId: string): Promise<{ found: boolean; click: MatchedClick | null }> {
  const rows = await db.query<{ id: string; campaign_id: string | null; attributable: boolean }>(
    `SELECT id, campaign_id, (${ATTRIBUTABLE}) AS attributable FROM clicks WHERE id = $1 AND org_id = $2`,
    [clickId, orgId],
  );
  const row = rows[0];
  if (!row) return { found: false, click: null };
  return { found: true, click: row.attributable ? { id: row.id, campaignId: row.campaign_id } : null };
}

export async function findLatestClickByGclid(db: Queryable, orgId: string, gclid: string): Promise<MatchedClick | null> {
  const rows = await db.query<{ id: string; campaign_id: string | null }>(
    `SELECT id, campaign_id FROM clicks
      WHERE org_id = $1 AND gclid = $2 AND ${ATTRIBUTABLE}
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [orgId, gclid],
  );
  const row = rows[0];
  return row ? { id: row.id, campaignId: row.campaign_id } : null;
}

export interface NewConversion {
  id: string;
  orgId: string;
  clickId: string | null;
  campaignId: string | null;
  eventName: string;
  value: number | null;
  currency: string | null;
  orderId: string | null;
  gclid: string | null;
  source: ConversionSource;
  matched: boolean;
  apiKeyId: string;
}

/**
 * Stores a conversion with its audit row and its outbound postbacks in ONE statement (so one
 * transaction and one round trip on the hot path):
 * - inserts it, or - when the organization already has this order_id + event - updates value
 *   and currency of the stored one (a value left out keeps the stored one); the unique index
 *   makes concurrent repeats safe, and `created` tells which path ran;
 * - records who wrote it in audit_log (as src/auth/audit.ts does);
 * - when it is new, queues one postback_deliveries row (the outbox, src/postbacks/) for every
 *   live destination of the organization that wants this event. A delivery id is the
 *   conversion id plus the destination's ordinal: unique, and sorted by time like the rest.
 */
export async function saveConversion(
  db: Queryable,
  c: NewConversion,
  auditId: string,
): Promise<{ id: string; matched: boolean; created: boolean; queued: number }> {
  const rows = await db.query<{ id: string; matched: boolean; created: boolean; queued: number }>(
    `WITH saved AS (
       INSERT INTO conversions (id, org_id, click_id, campaign_id, event_name, value, currency, order_id, gclid, source, matched, api_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (org_id, order_id, event_name) WHERE order_id IS NOT NULL DO UPDATE SET
         value = COALESCE(EXCLUDED.value, conversions.value),
         currency = COALESCE(EXCLUDED.currency, conversions.currency),
         updated_at = now()
       RETURNING id, matched, (id = $1) AS created
     ), audited AS (
       INSERT INTO audit_log (id, org_id, api_key_id, action, entity, entity_id, detail)
       SELECT $13, $2, $12, CASE WHEN created THEN 'create' ELSE 'update' END, 'conversion', id,
              jsonb_build_object('source', $10::text, 'event', $5::text, 'matched', matched)
         FROM saved
     ), queued AS (
       INSERT INTO postback_deliveries (id, org_id, destination_id, conversion_id, event_name)
       SELECT saved.id || '.' || row_number() OVER (ORDER BY d.id), $2, d.id, saved.id, $5
         FROM saved JOIN postback_destinations d
           ON saved.created AND d.org_id = $2 AND d.deleted_at IS NULL
          AND (d.events IS NULL OR d.events @> jsonb_build_array($5::text))
       RETURNING 1
     )
     SELECT id, matched, created, (SELECT count(*)::int FROM queued) AS queued FROM saved`,
    [c.id, c.orgId, c.clickId, c.campaignId, c.eventName, c.value, c.currency, c.orderId, c.gclid, c.source, c.matched, c.apiKeyId, auditId],
  );
  return rows[0]!;
}

export function listConversions(db: Queryable, orgId: string, limit: number): Promise<ConversionRow[]> {
  return db.query<ConversionRow>(
    `SELECT id, org_id, click_id, campaign_id, event_name, value, currency, order_id, gclid, source, matched, created_at
       FROM conversions WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [orgId, limit],
  );
}

/**
 * Late matching: recent unmatched conversions whose click has landed since. By click id
 * first, then the latest attributable click with the gclid. Same organization only.
 * Returns the ids it matched.
 */
export async function matchLateConversions(db: Queryable, since: Date): Promise<string[]> {
  const byClickId = await db.query<{ id: string }>(
    `UPDATE conversions c SET matched = true, campaign_id = k.campaign_id, updated_at = now()
       FROM clicks k
      WHERE NOT c.matched AND (c.click_id IS NOT NULL OR c.gclid IS NOT NULL) AND c.created_at > $1
        AND k.id = c.click_id AND k.org_id = c.org_id AND k.drop_reason IS NULL AND NOT k.is_bot
      RETURNING c.id`,
    [since],
  );
  const byGclid = await db.query<{ id: string }>(
    `UPDATE conversions c SET matched = true, click_id = m.click_id, campaign_id = m.campaign_id, updated_at = now()
       FROM (SELECT u.id AS conversion_id, k.id AS click_id, k.campaign_id
               FROM conversions u
              CROSS JOIN LATERAL (
                SELECT id, campaign_id FROM clicks
                 WHERE org_id = u.org_id AND gclid = u.gclid AND drop_reason IS NULL AND NOT is_bot
                 ORDER BY created_at DESC, id DESC LIMIT 1) k
              WHERE NOT u.matched AND (u.click_id IS NOT NULL OR u.gclid IS NOT NULL) AND u.created_at > $1
                AND u.gclid IS NOT NULL) m
      WHERE c.id = m.conversion_id AND NOT c.matched
      RETURNING c.id`,
    [since],
  );
  return [...byClickId, ...byGclid].map((row) => row.id);
}
