import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { ConversionRow, ConversionSource } from './conversions.model';

export interface MatchedClick {
  id: string;
  campaignId: string | null;
}

/** A click may attribute only when no ingestion step dropped it and it is no verified bot. */
const attributable = (alias?: string) => (alias ? `${alias}.drop_reason IS NULL AND NOT ${alias}.is_bot` : 'drop_reason IS NULL AND NOT is_bot');
const ATTRIBUTABLE = attributable();

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
 * Stores the rows of the CTE `ready` (n, id, org_id, event_name, source, api_key_id, audit_id, value,
 * currency, order_id, gclid, click_id, campaign_id, matched): insert or update on order_id + event, the
 * audit row, and a new conversion's outbox rows (docs/conversions.md, "What one conversion writes").
 */
const STORE_READY = `
saved AS (
  INSERT INTO conversions (id, org_id, event_name, source, api_key_id, value, currency, order_id, gclid, click_id, campaign_id, matched)
  SELECT id, org_id, event_name, source, api_key_id, value, currency, order_id, gclid, click_id, campaign_id, matched FROM ready
  ON CONFLICT (org_id, order_id, event_name) WHERE order_id IS NOT NULL DO UPDATE SET
    value = COALESCE(EXCLUDED.value, conversions.value),
    currency = COALESCE(EXCLUDED.currency, conversions.currency),
    updated_at = now()
  RETURNING id, org_id, order_id, event_name, matched
), resolved AS (
  -- Back to the request each row came from: by id when inserted, by order_id + event when an
  -- earlier conversion was updated (a statement never holds two requests with the same pair).
  SELECT r.n, r.audit_id, r.api_key_id, r.source, s.id, s.org_id, s.event_name, s.matched, (s.id = r.id) AS created
    FROM saved s JOIN ready r
      ON s.id = r.id OR (s.id <> r.id AND s.org_id = r.org_id AND s.order_id = r.order_id AND s.event_name = r.event_name)
), audited AS (
  INSERT INTO audit_log (id, org_id, api_key_id, action, entity, entity_id, detail)
  SELECT audit_id, org_id, api_key_id, CASE WHEN created THEN 'create' ELSE 'update' END, 'conversion', id,
         jsonb_build_object('source', source, 'event', event_name, 'matched', matched)
    FROM resolved
), queued AS (
  INSERT INTO postback_deliveries (id, org_id, destination_id, conversion_id, event_name)
  SELECT r.id || '.' || row_number() OVER (PARTITION BY r.id ORDER BY d.id), r.org_id, d.id, r.id, r.event_name
    FROM resolved r JOIN postback_destinations d
      ON r.created AND d.org_id = r.org_id AND d.deleted_at IS NULL
     AND (d.events IS NULL OR d.events @> jsonb_build_array(r.event_name))
  RETURNING conversion_id
)`;

/** The columns of one conversion request, as the batched statement reads them from JSON. */
const REQUEST_RECORD = `n int, id text, org_id text, event_name text, source text, api_key_id text, audit_id text,
  value numeric, currency text, order_id text, gclid text, click_id text`;
const LIVE_KEY = 'EXISTS (SELECT 1 FROM api_keys k WHERE k.id = r.api_key_id AND k.org_id = r.org_id AND k.revoked_at IS NULL)';

/** A conversion request for the batched hot path: its fields, its audit id and its click id. */
export interface ClickConversion {
  fields: ConversionFields;
  auditId: string;
  clickId: string;
}

/**
 * What the hot path did with one request: stored it (`saved`), found no attributable click of
 * the organization with that id (`no-click`: the caller takes the slower path), or refused it
 * because its API key is no longer live (`key-revoked`).
 */
export type ClickConversionOutcome = { status: 'saved'; saved: SavedConversion } | { status: 'no-click' } | { status: 'key-revoked' };

/**
 * The hot path for many requests in ONE statement: each request's click id is matched against
 * its own organization's attributable clicks, and the matched ones are stored as above.
 * Requests arrive as one JSON parameter, so the statement text never changes and stays prepared.
 */
export async function saveClickConversions(db: Queryable, requests: readonly ClickConversion[]): Promise<ClickConversionOutcome[]> {
  const records = requests.map(({ fields: c, auditId, clickId }, n) => ({
    n,
    id: c.id,
    org_id: c.orgId,
    event_name: c.eventName,
    source: c.source,
    api_key_id: c.apiKeyId,
    audit_id: auditId,
    value: c.value,
    currency: c.currency,
    order_id: c.orderId,
    gclid: c.gclid,
    click_id: clickId,
  }));
  const rows = await db.query<{ n: number; key_live: boolean; id: string | null; matched: boolean; created: boolean; queued: number }>(
    `WITH request AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${REQUEST_RECORD})
     ), live AS (
       SELECT r.* FROM request r WHERE ${LIVE_KEY}
     ), ready AS (
       SELECT l.*, k.campaign_id, true AS matched
         FROM live l JOIN clicks k ON k.id = l.click_id AND k.org_id = l.org_id AND ${attributable('k')}
     ), ${STORE_READY}
     SELECT r.n, (l.n IS NOT NULL) AS key_live, s.id, s.matched, s.created,
            (SELECT count(*)::int FROM queued q WHERE q.conversion_id = s.id) AS queued
       FROM request r LEFT JOIN live l ON l.n = r.n LEFT JOIN resolved s ON s.n = r.n`,
    [JSON.stringify(records)],
  );
  const outcomes: ClickConversionOutcome[] = requests.map(() => ({ status: 'no-click' }));
  for (const row of rows) {
    if (!row.key_live) outcomes[row.n] = { status: 'key-revoked' };
    else if (row.id !== null) outcomes[row.n] = { status: 'saved', saved: { id: row.id, matched: row.matched, created: row.created, queued: row.queued } };
  }
  return outcomes;
}

/**
 * Stores one conversion with the click it was matched to (or none). Resolves to null, writing
 * nothing, when its API key is no longer live.
 */
export async function saveConversion(
  db: Queryable,
  c: ConversionFields,
  auditId: string,
  click: { clickId: string | null; campaignId: string | null; matched: boolean },
): Promise<SavedConversion | null> {
  const rows = await db.query<SavedConversion>(
    `WITH ready AS (
       SELECT * FROM (
         SELECT 0 AS n, $1::text AS id, $2::text AS org_id, $3::text AS event_name, $4::text AS source, $5::text AS api_key_id,
                $6::text AS audit_id, $7::numeric AS value, $8::text AS currency, $9::text AS order_id, $10::text AS gclid,
                $11::text AS click_id, $12::text AS campaign_id, $13::boolean AS matched) r
        WHERE ${LIVE_KEY}
     ), ${STORE_READY}
     SELECT id, matched, created, (SELECT count(*)::int FROM queued) AS queued FROM resolved`,
    [c.id, c.orgId, c.eventName, c.source, c.apiKeyId, auditId, c.value, c.currency, c.orderId, c.gclid, click.clickId, click.campaignId, click.matched],
  );
  return rows[0] ?? null;
}

/** Most recent first; the cursor names the last conversion shown. */
export const CONVERSIONS_KEYSET: Keyset = { kind: 'anchor', list: 'conversions', table: 'conversions', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listConversions(db: Queryable, orgId: string, page: PageRequest): Promise<ConversionRow[]> {
  const after = keysetCondition(CONVERSIONS_KEYSET, page.after, 3);
  return db.query<ConversionRow>(
    `SELECT id, org_id, click_id, campaign_id, event_name, value, currency, order_id, gclid, source, matched, created_at
       FROM conversions WHERE org_id = $1 AND ${after.sql} ORDER BY ${keysetOrder(CONVERSIONS_KEYSET)} LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}

/** Recent conversions still waiting for their click: what conversions_unmatched_idx holds. */
const unmatchedSince1 = (alias: string) =>
  `NOT ${alias}.matched AND (${alias}.click_id IS NOT NULL OR ${alias}.gclid IS NOT NULL) AND ${alias}.created_at > $1`;

/*
 * The late matcher's two statements ($1: the oldest conversion still waiting). The updated row `c`
 * is held to the candidate's predicate too, which changes no match but lets a planner without
 * statistics reach it through conversions_unmatched_idx instead of scanning every conversion.
 */
export const LATE_MATCH_BY_CLICK_ID = `UPDATE conversions c SET matched = true, campaign_id = m.campaign_id, updated_at = now()
   FROM (SELECT u.id, k.campaign_id
           FROM conversions u
          CROSS JOIN LATERAL (
            SELECT campaign_id FROM clicks
             WHERE id = u.click_id AND org_id = u.org_id AND ${ATTRIBUTABLE}
             LIMIT 1) k
          WHERE ${unmatchedSince1('u')} AND u.click_id IS NOT NULL) m
  WHERE c.id = m.id AND ${unmatchedSince1('c')}
  RETURNING c.id`;

export const LATE_MATCH_BY_GCLID = `UPDATE conversions c SET matched = true, click_id = m.click_id, campaign_id = m.campaign_id, updated_at = now()
   FROM (SELECT u.id AS conversion_id, k.id AS click_id, k.campaign_id
           FROM conversions u
          CROSS JOIN LATERAL (
            SELECT id, campaign_id FROM clicks
             WHERE org_id = u.org_id AND gclid = u.gclid AND ${ATTRIBUTABLE}
             ORDER BY created_at DESC, id DESC LIMIT 1) k
          WHERE ${unmatchedSince1('u')} AND u.gclid IS NOT NULL) m
  WHERE c.id = m.conversion_id AND ${unmatchedSince1('c')}
  RETURNING c.id`;

/**
 * Late matching: recent unmatched conversions whose click has landed since. By click id
 * first, then the latest attributable click with the gclid. Same organization only.
 * Returns the ids it matched.
 */
export async function matchLateConversions(db: Queryable, since: Date): Promise<string[]> {
  // Both statements are planned on every call (they run every 2 s, not per request): a plan
  // cached while the table was nearly empty would scan every conversion ever stored
  // (QueryOptions.planEachCall).
  const byClickId = await db.query<{ id: string }>(LATE_MATCH_BY_CLICK_ID, [since], { planEachCall: true });
  const byGclid = await db.query<{ id: string }>(LATE_MATCH_BY_GCLID, [since], { planEachCall: true });
  return [...byClickId, ...byGclid].map((row) => row.id);
}
