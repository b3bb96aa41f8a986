import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { ConversionPayload, DeliveryRow, DeliveryStatus, DestinationRow } from './postbacks.model';

const DESTINATION_COLUMNS = 'id, org_id, url, method, events, secret, created_at';

/**
 * Inserts a destination unless the organization already has `cap` live ones (null then). The
 * organization's row is locked first, so concurrent creates count one after another; NO KEY
 * UPDATE leaves inserts that only reference the organization (clicks, conversions) unblocked.
 */
export async function insertDestinationWithinCap(
  tx: Queryable,
  d: { id: string; orgId: string; url: string; method: 'GET' | 'POST'; events: string[] | null; secret: string },
  cap: number,
): Promise<DestinationRow | null> {
  await tx.query('SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [d.orgId]);
  // A statement of its own: it reads the table after the lock is held, concurrent inserts included.
  const rows = await tx.query<DestinationRow>(
    `INSERT INTO postback_destinations (id, org_id, url, method, events, secret)
     SELECT $1, $2, $3, $4, $5::text::jsonb, $6
      WHERE (SELECT count(*) FROM postback_destinations WHERE org_id = $2 AND deleted_at IS NULL) < $7
     RETURNING ${DESTINATION_COLUMNS}`,
    [d.id, d.orgId, d.url, d.method, d.events === null ? null : JSON.stringify(d.events), d.secret, cap],
  );
  return rows[0] ?? null;
}

/** Newest first; the cursor names the last destination shown (a deleted one keeps its row, so it still anchors). */
export const DESTINATIONS_KEYSET: Keyset = { kind: 'anchor', list: 'postback-destinations', table: 'postback_destinations', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listDestinations(db: Queryable, orgId: string, page: PageRequest): Promise<DestinationRow[]> {
  const after = keysetCondition(DESTINATIONS_KEYSET, page.after, 3);
  return db.query<DestinationRow>(
    `SELECT ${DESTINATION_COLUMNS} FROM postback_destinations
      WHERE org_id = $1 AND deleted_at IS NULL AND ${after.sql} ORDER BY ${keysetOrder(DESTINATIONS_KEYSET)} LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}

/** Soft-deletes a live destination of the organization and cancels what it still owed. */
export async function deleteDestination(tx: Queryable, orgId: string, id: string): Promise<{ cancelled: number } | null> {
  const rows = await tx.query(
    'UPDATE postback_destinations SET deleted_at = now() WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL RETURNING id',
    [id, orgId],
  );
  if (rows.length === 0) return null;
  const cancelled = await tx.query(
    `UPDATE postback_deliveries SET status = 'cancelled', last_error = 'destination deleted', updated_at = now()
      WHERE org_id = $2 AND destination_id = $1 AND status = 'pending' RETURNING id`,
    [id, orgId],
  );
  return { cancelled: cancelled.length };
}

/** Newest first; the cursor names the last delivery shown. */
export const DELIVERIES_KEYSET: Keyset = { kind: 'anchor', list: 'postback-deliveries', table: 'postback_deliveries', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listDeliveries(
  db: Queryable,
  orgId: string,
  filter: { status?: DeliveryStatus; conversionId?: string; destinationId?: string },
  page: PageRequest,
): Promise<DeliveryRow[]> {
  const after = keysetCondition(DELIVERIES_KEYSET, page.after, 6);
  return db.query<DeliveryRow>(
    `SELECT id, destination_id, conversion_id, event_name, status, attempts, next_attempt_at,
            last_status_code, last_error, created_at, updated_at, delivered_at
       FROM postback_deliveries
      WHERE org_id = $1
        AND ($2::text IS NULL OR status = $2)
        AND ($3::text IS NULL OR conversion_id = $3)
        AND ($4::text IS NULL OR destination_id = $4)
        AND ${after.sql}
      ORDER BY ${keysetOrder(DELIVERIES_KEYSET)} LIMIT $5`,
    [orgId, filter.status ?? null, filter.conversionId ?? null, filter.destinationId ?? null, page.limit, ...after.params],
  );
}

/** A claimed delivery with what sending it needs. `conversion` is null if the row vanished. */
export interface ClaimedDelivery {
  id: string;
  /** The delivery's organization: its outcome is recorded by (org_id, id), as a sharded store routes it. */
  orgId: string;
  attempts: number;
  url: string;
  method: 'GET' | 'POST';
  secret: string;
  destinationDeleted: boolean;
  conversion: ConversionPayload | null;
}

/**
 * Claims due deliveries for this worker. SKIP LOCKED lets workers on several nodes claim at
 * once without taking the same row; pushing next_attempt_at one lease ahead is the claim, so
 * a worker that dies mid-send leaves the row to be picked up again when the lease runs out.
 */
export async function claimDueDeliveries(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  // The conversion's columns as the payload names them, except its id, event and timestamp.
  type ClaimRow = Omit<ConversionPayload, 'id' | 'event' | 'created_at'> & {
    id: string;
    org_id: string;
    attempts: number;
    url: string;
    method: 'GET' | 'POST';
    secret: string;
    destination_deleted: boolean;
    conversion_id: string | null;
    event_name: string;
    created_at: Date;
  };
  const rows = await db.query<ClaimRow>(
    `WITH claimed AS (
       UPDATE postback_deliveries
          SET attempts = attempts + 1, next_attempt_at = now() + ($2::int * interval '1 millisecond'), updated_at = now()
        WHERE id IN (SELECT id FROM postback_deliveries
                      WHERE status = 'pending' AND next_attempt_at <= now()
                      ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id, org_id, destination_id, conversion_id, attempts)
     SELECT d.id, d.org_id, d.attempts, t.url, t.method, t.secret, (t.deleted_at IS NOT NULL) AS destination_deleted,
            c.id AS conversion_id, c.event_name, c.click_id, c.gclid, c.campaign_id, c.value, c.currency,
            c.order_id, c.matched, c.source, c.created_at
       FROM claimed d
       JOIN postback_destinations t ON t.id = d.destination_id
       LEFT JOIN conversions c ON c.id = d.conversion_id AND c.org_id = d.org_id`,
    [limit, leaseMs],
  );
  return rows.map((row) => ({
    id: row.id,
    orgId: row.org_id,
    attempts: row.attempts,
    url: row.url,
    method: row.method,
    secret: row.secret,
    destinationDeleted: row.destination_deleted,
    conversion:
      row.conversion_id === null
        ? null
        : {
            id: row.conversion_id,
            event: row.event_name,
            click_id: row.click_id,
            gclid: row.gclid,
            campaign_id: row.campaign_id,
            value: row.value,
            currency: row.currency,
            order_id: row.order_id,
            matched: row.matched,
            source: row.source,
            created_at: row.created_at.toISOString(),
          },
  }));
}

export type AttemptOutcome =
  | { kind: 'delivered'; statusCode: number }
  | { kind: 'retry'; statusCode: number | null; error: string; delayMs: number }
  | { kind: 'failed'; statusCode: number | null; error: string }
  | { kind: 'cancelled'; error: string }
  /**
   * Not sent, or cut short by a stop: the attempt does not count and the row is due again after
   * delayMs (0 after a stop; the host's next slot when its pace held it back).
   */
  | { kind: 'released'; delayMs: number };

export async function recordOutcome(db: Queryable, delivery: Pick<ClaimedDelivery, 'id' | 'orgId'>, outcome: AttemptOutcome): Promise<void> {
  const { id, orgId } = delivery;
  switch (outcome.kind) {
    case 'delivered':
      await db.query(
        `UPDATE postback_deliveries SET status = 'delivered', last_status_code = $2, last_error = NULL,
                delivered_at = now(), updated_at = now() WHERE org_id = $3 AND id = $1`,
        [id, outcome.statusCode, orgId],
      );
      return;
    case 'retry':
      await db.query(
        `UPDATE postback_deliveries SET last_status_code = $2, last_error = $3,
                next_attempt_at = now() + ($4::int * interval '1 millisecond'), updated_at = now() WHERE org_id = $5 AND id = $1`,
        [id, outcome.statusCode, outcome.error, Math.round(outcome.delayMs), orgId],
      );
      return;
    case 'failed':
      await db.query(
        `UPDATE postback_deliveries SET status = 'failed', last_status_code = $2, last_error = $3, updated_at = now()
          WHERE org_id = $4 AND id = $1`,
        [id, outcome.statusCode, outcome.error, orgId],
      );
      return;
    case 'cancelled':
      await db.query(`UPDATE postback_deliveries SET status = 'cancelled', last_error = $2, updated_at = now() WHERE org_id = $3 AND id = $1`, [
        id,
        outcome.error,
        orgId,
      ]);
      return;
    case 'released':
      await db.query(
        `UPDATE postback_deliveries SET attempts = GREATEST(attempts - 1, 0),
                next_attempt_at = now() + ($2::int * interval '1 millisecond'), updated_at = now()
          WHERE org_id = $3 AND id = $1 AND status = 'pending'`,
        [id, Math.round(outcome.delayMs), orgId],
      );
      return;
  }
}
