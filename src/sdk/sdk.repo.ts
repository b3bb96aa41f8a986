import type { Db, Queryable } from '../db/db';

/** One row of the events table: in-app events, ad revenue and subscription events alike. */
export interface EventRow {
  id: string;
  orgId: string;
  appId: string;
  installId: string | null;
  /** null for a store notification's event on a purchase no SDK call has linked yet. */
  deviceIdHash: string | null;
  name: string;
  value: number | null;
  currency: string | null;
  params: Record<string, unknown> | null;
  occurredAt: Date;
  /** The region of the request's address, for POST /api/sdk/v1/events (docs/growth-imports.md, "Regions"). */
  region: string | null;
}

const EVENT_COLUMNS = ['id', 'org_id', 'app_id', 'install_id', 'device_id_hash', 'name', 'value', 'currency', 'params', 'occurred_at', 'region'] as const;

const eventValues = (e: EventRow) => [e.id, e.orgId, e.appId, e.installId, e.deviceIdHash, e.name, e.value, e.currency, e.params, e.occurredAt.toISOString(), e.region];

/** A batch of events in multi-row statements. jsonb goes in as an object: both drivers serialise it. */
export async function insertEvents(db: Db, events: readonly EventRow[]): Promise<number> {
  return db.bulkInsert('events', EVENT_COLUMNS, events.map(eventValues));
}

export async function insertEvent(db: Queryable, e: EventRow): Promise<void> {
  await db.query(
    `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10::timestamptz, $11)`,
    [e.id, e.orgId, e.appId, e.installId, e.deviceIdHash, e.name, e.value, e.currency, e.params === null ? null : JSON.stringify(e.params), e.occurredAt.toISOString(), e.region],
  );
}

export async function insertReengagement(
  db: Queryable,
  r: { id: string; orgId: string; appId: string; installId: string; clickId: string | null; campaignId: string | null; attributed: boolean; deepLinkPath: string | null; occurredAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO reengagements (id, org_id, app_id, install_id, click_id, campaign_id, attributed, deep_link_path, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz)`,
    [r.id, r.orgId, r.appId, r.installId, r.clickId, r.campaignId, r.attributed, r.deepLinkPath, r.occurredAt.toISOString()],
  );
}

export interface NewSubscription {
  id: string;
  orgId: string;
  appId: string;
  installId: string | null;
  deviceIdHash: string;
  store: string;
  originalTransactionId: string | null;
  purchaseToken: string | null;
  productId: string;
  isTrial: boolean;
  priceMicros: number | null;
  currency: string | null;
  expiresAt: Date | null;
  occurredAt: Date;
}

export interface SubscriptionRow {
  id: string;
  install_id: string | null;
}

/**
 * The purchase's identity: the original transaction id when the store gave one (the spec's
 * de-duplication key), otherwise the purchase token. Each has its own partial unique index.
 */
const BY_TRANSACTION = {
  conflict: 'ON CONFLICT (app_id, store, original_transaction_id) WHERE original_transaction_id IS NOT NULL DO NOTHING',
  find: 'SELECT id, install_id FROM subscriptions WHERE app_id = $1 AND store = $2 AND original_transaction_id = $3',
};
const BY_TOKEN = {
  conflict: 'ON CONFLICT (app_id, store, purchase_token) WHERE original_transaction_id IS NULL AND purchase_token IS NOT NULL DO NOTHING',
  find: 'SELECT id, install_id FROM subscriptions WHERE app_id = $1 AND store = $2 AND original_transaction_id IS NULL AND purchase_token = $3',
};

/** Inserts the purchase; null when it is already known (a repeat). */
export async function insertSubscription(db: Queryable, s: NewSubscription): Promise<SubscriptionRow | null> {
  const key = s.originalTransactionId !== null ? BY_TRANSACTION : BY_TOKEN;
  const rows = await db.query<SubscriptionRow>(
    `INSERT INTO subscriptions (id, org_id, app_id, install_id, device_id_hash, store, original_transaction_id, purchase_token,
       product_id, is_trial, price_micros, currency, expires_at, occurred_at, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::timestamptz, $14::timestamptz, CASE WHEN $10::boolean THEN 'trial' ELSE 'active' END)
     ${key.conflict}
     RETURNING id, install_id`,
    [
      s.id,
      s.orgId,
      s.appId,
      s.installId,
      s.deviceIdHash,
      s.store,
      s.originalTransactionId,
      s.purchaseToken,
      s.productId,
      s.isTrial,
      s.priceMicros,
      s.currency,
      s.expiresAt?.toISOString() ?? null,
      s.occurredAt.toISOString(),
    ],
  );
  return rows[0] ?? null;
}

export async function findSubscription(db: Queryable, appId: string, store: string, key: { originalTransactionId: string | null; purchaseToken: string | null }): Promise<SubscriptionRow | null> {
  const rows = key.originalTransactionId !== null
    ? await db.query<SubscriptionRow>(BY_TRANSACTION.find, [appId, store, key.originalTransactionId])
    : await db.query<SubscriptionRow>(BY_TOKEN.find, [appId, store, key.purchaseToken]);
  return rows[0] ?? null;
}

/**
 * Links a purchase first seen before its install (or, from a store notification, its device) was
 * known; an existing link is kept. The events store notifications recorded on it unlinked follow.
 */
export async function linkSubscription(db: Queryable, id: string, installId: string | null, deviceIdHash: string): Promise<string | null> {
  const rows = await db.query<{ install_id: string | null; app_id: string; device_id_hash: string }>(
    `UPDATE subscriptions SET install_id = COALESCE(install_id, $2), device_id_hash = COALESCE(device_id_hash, $3), updated_at = now()
     WHERE id = $1 RETURNING install_id, app_id, device_id_hash`,
    [id, installId, deviceIdHash],
  );
  const linked = rows[0];
  if (!linked) return null;
  await db.query(
    `UPDATE events SET install_id = COALESCE(install_id, $3), device_id_hash = $4
     WHERE app_id = $1 AND install_id IS NULL AND (device_id_hash IS NULL OR device_id_hash = $4) AND params->>'subscription_id' = $2`,
    [linked.app_id, id, linked.install_id, linked.device_id_hash],
  );
  return linked.install_id;
}
