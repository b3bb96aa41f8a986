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

/** What a conversion stores besides its click, which is matched separately. */
export interface ConversionFields {
  id: string;
  orgId: string;
  eventName: string;
  value: number | null;
  currency: string | null;
  orderId: string | null;
  gclid: string | null;
  source: ConversionSource;
  apiKeyId: string;
}

export interface SavedConversion {
  id: string;
  matched: boolean;
  created: boolean;
  queued: number;
}

/*
 * A conversion is stored with its audit row and its outbound postbacks in ONE statement (one
 * transaction, one round trip on the hot path):
 * - insert it, or - when the organization already has this order_id + event - update value and
 *   currency of the stored one (a value left out keeps the stored one); the unique index makes
 *   concurrent repeats safe, and `created` tells which path ran;
 * - record who wrote it in audit_log (as src/auth/audit.ts does);
 * - when it is new, queue one postback_deliveries row (the outbox, src/postbacks/) for every
 *   live destination of the organization that wants this event. A delivery id is the
 *   conversion id plus the destination's ordinal: unique, and sorted by time like the rest.
 * Shared parameters: $1 id, $2 org, $3 event, $4 source, $5 api key, $6 audit id, $7 value,
 * $8 currency, $9 order id, $10 gclid, $11 click id; the two variants differ in where the click
 * columns come from.
 */
const INSERT_CONVERSION = `INSERT INTO conversions
  (id, org_id, event_name, source, api_key_id, value, currency, order_id, gclid, click_id, campaign_id, matched)`;
const UPSERT_AND_LOG = `
  ON CONFLICT (org_id, order_id, event_name) WHERE order_id IS NOT NULL DO UPDATE SET
    value = COALESCE(EXCLUDED.value, conversions.value),
    currency = COALESCE(EXCLUDED.currency, conversions.currency),
    updated_at = now()
  RETURNING id, matched, (id = $1::text) AS created
), audited AS (
  INSERT INTO audit_log (id, org_id, api_key_id, action, entity, entity_id, detail)
  SELECT $6::text, $2::text, $5::text, CASE WHEN created THEN 'create' ELSE 'update' END, 'conversion', id,
         jsonb_build_object('source', $4::text, 'event', $3::text, 'matched', matched)
    FROM saved
), queued AS (
  INSERT INTO postback_deliveries (id, org_id, destination_id, conversion_id, event_name)
  SELECT saved.id || '.' || row_number() OVER (ORDER BY d.id), $2::text, d.id, saved.id, $3::text
    FROM saved JOIN postback_destinations d
      ON saved.created AND d.org_id = $2::text AND d.deleted_at IS NULL
     AND (d.events IS NULL OR d.events @> jsonb_build_array($3::text))
  RETURNING 1
)
SELECT id, matched, created, (SELECT count(*)::int FROM queued) AS queued FROM saved`;
const SHARED_VALUES = '$1::text, $2::text, $3::text, $4::text, $5::text, $7::numeric, $8::text, $9::text, $10::text';

const sharedParams = (c: ConversionFields, auditId: string, clickId: string | null) =>
  [c.id, c.orgId, c.eventName, c.source, c.apiKeyId, auditId, c.value, c.currency, c.orderId, c.gclid, clickId] as unknown[];

/** Stores a conversion with the click it was matched to (or none: `click` null). */
export async function saveConversion(db: Queryable, c: ConversionFields, auditId: string, click: { clickId: string | null; campaignId: string | null; matched: boolean }): Promise<SavedConversion> {
  const rows = await db.query<SavedConversion>(
    `WITH saved AS (${INSERT_CONVERSION} VALUES (${SHARED_VALUES}, $11::text, $12::text, $13::boolean) ${UPSERT_AND_LOG}`,
    [...sharedParams(c, auditId, click.clickId), click.campaignId, click.matched],
  );
  return rows[0]!;
}

/**
 * The hot path: matches the click id and stores the conversion in the same statement. Writes
 * nothing and resolves to null when no attributable click of the organization has that id;
 * the caller then takes the slower path (waiting for a fresh click, gclid, unmatched).
 */
export async function saveIfClickMatches(db: Queryable, c: ConversionFields, auditId: string, clickId: string): Promise<SavedConversion | null> {
  const rows = await db.query<SavedConversion>(
    `WITH click AS (
       SELECT id, campaign_id FROM clicks WHERE id = $11::text AND org_id = $2::text AND ${ATTRIBUTABLE}
     ), saved AS (${INSERT_CONVERSION} SELECT ${SHARED_VALUES}, click.id, click.campaign_id, true FROM click ${UPSERT_AND_LOG}`,
    sharedParams(c, auditId, clickId),
  );
  return rows[0] ?? null;
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
