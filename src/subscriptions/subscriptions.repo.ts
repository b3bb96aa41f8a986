import type { Queryable } from '../db/db';
import { exactTimestamp, keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { SubscriptionState } from './state-machine';
import type { Store } from './subscriptions.model';

/** The platforms each store sells to: a notification's bundle id or package name is looked up among them. */
export const STORE_PLATFORMS: Readonly<Record<Store, readonly string[]>> = {
  apple: ['ios', 'tvos', 'macos'],
  google: ['android', 'android_tv'],
};

/** How a store names one purchase. */
export type PurchaseKey = { store: 'apple'; originalTransactionId: string } | { store: 'google'; purchaseToken: string };

export interface StoreApp {
  id: string;
  org_id: string;
}

const placeholders = (from: number, count: number) => Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');

export function findStoreApps(db: Queryable, store: Store, bundleId: string): Promise<StoreApp[]> {
  const platforms = STORE_PLATFORMS[store];
  return db.query<StoreApp>(`SELECT id, org_id FROM apps WHERE bundle_id = $1 AND deleted_at IS NULL AND platform IN (${placeholders(2, platforms.length)}) ORDER BY id`, [
    bundleId,
    ...platforms,
  ]);
}

/** Apple's original transaction id is the SDK call's key; Google's token is matched whatever else the SDK sent. */
function keyCondition(key: PurchaseKey, param: number): { sql: string; value: string } {
  return key.store === 'apple'
    ? { sql: `store = 'apple' AND original_transaction_id = $${param}`, value: key.originalTransactionId }
    : { sql: `store = 'google' AND purchase_token = $${param}`, value: key.purchaseToken };
}

/** Of these apps, the ones already holding the purchase (from the SDK call or an earlier notification). */
export async function appsHolding(db: Queryable, appIds: readonly string[], key: PurchaseKey): Promise<string[]> {
  const condition = keyCondition(key, 1);
  const rows = await db.query<{ app_id: string }>(
    `SELECT DISTINCT app_id FROM subscriptions WHERE ${condition.sql} AND app_id IN (${placeholders(2, appIds.length)})`,
    [condition.value, ...appIds],
  );
  return rows.map((row) => row.app_id);
}

export interface SubscriptionRecord {
  id: string;
  org_id: string;
  app_id: string;
  install_id: string | null;
  device_id_hash: string | null;
  product_id: string;
  status: SubscriptionState;
  is_trial: boolean;
  price_micros: number | null;
  currency: string | null;
  expires_at: Date | null;
  last_signed_at: Date | null;
}

const RECORD_COLUMNS = 'id, org_id, app_id, install_id, device_id_hash, product_id, status, is_trial, price_micros, currency, expires_at, last_signed_at';

/** The purchase's row, locked until the transaction ends so two notifications apply one after the other. */
export async function lockSubscription(tx: Queryable, appId: string, key: PurchaseKey): Promise<SubscriptionRecord | null> {
  const condition = keyCondition(key, 2);
  const rows = await tx.query<SubscriptionRecord>(
    `SELECT ${RECORD_COLUMNS} FROM subscriptions WHERE app_id = $1 AND ${condition.sql} ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
    [appId, condition.value],
  );
  return rows[0] ?? null;
}

/** A purchase first heard of from its store: no install, no device until the SDK call links it. */
export async function insertUnlinkedSubscription(
  tx: Queryable,
  s: { id: string; orgId: string; appId: string; key: PurchaseKey; productId: string; environment: string; occurredAt: Date },
): Promise<void> {
  const originalTransactionId = s.key.store === 'apple' ? s.key.originalTransactionId : null;
  const purchaseToken = s.key.store === 'google' ? s.key.purchaseToken : null;
  await tx.query(
    `INSERT INTO subscriptions (id, org_id, app_id, store, original_transaction_id, purchase_token, product_id, environment, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz)
     ON CONFLICT DO NOTHING`,
    [s.id, s.orgId, s.appId, s.key.store, originalTransactionId, purchaseToken, s.productId, s.environment, s.occurredAt.toISOString()],
  );
}

export interface SubscriptionUpdate {
  status: SubscriptionState;
  isTrial: boolean;
  expiresAt: Date | null;
  lastSignedAt: Date | null;
  productId: string;
  priceMicros: number | null;
  currency: string | null;
  environment: string;
}

export async function updateSubscription(tx: Queryable, id: string, u: SubscriptionUpdate): Promise<void> {
  await tx.query(
    `UPDATE subscriptions SET status = $2, is_trial = $3, expires_at = $4::timestamptz, last_signed_at = $5::timestamptz, product_id = $6,
       price_micros = $7, currency = $8, environment = $9, updated_at = now()
     WHERE id = $1`,
    [id, u.status, u.isTrial, u.expiresAt?.toISOString() ?? null, u.lastSignedAt?.toISOString() ?? null, u.productId, u.priceMicros, u.currency, u.environment],
  );
}

export interface NotificationRow {
  appId: string;
  orgId: string;
  store: Store;
  notificationId: string;
  type: string;
  subtype: string | null;
  signedAt: Date;
}

/** Claims the notification id; false when it was received before (a replay). */
export async function claimNotification(tx: Queryable, n: NotificationRow): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO store_notifications (app_id, store, notification_id, org_id, type, subtype, signed_at, outcome)
     VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz, 'ignored')
     ON CONFLICT (app_id, store, notification_id) DO NOTHING
     RETURNING notification_id`,
    [n.appId, n.store, n.notificationId, n.orgId, n.type, n.subtype, n.signedAt.toISOString()],
  );
  return rows.length === 1;
}

export type NotificationOutcome = 'applied' | 'stale' | 'ignored';

export async function settleNotification(tx: Queryable, key: { appId: string; store: Store; notificationId: string }, subscriptionId: string | null, outcome: NotificationOutcome): Promise<void> {
  await tx.query('UPDATE store_notifications SET subscription_id = $4, outcome = $5 WHERE app_id = $1 AND store = $2 AND notification_id = $3', [
    key.appId,
    key.store,
    key.notificationId,
    subscriptionId,
    outcome,
  ]);
}

/** What a notification received before answered: its subscription, if any; undefined when it is new. */
export async function receivedNotification(db: Queryable, key: { appId: string; store: Store; notificationId: string }): Promise<{ subscription_id: string | null } | undefined> {
  const rows = await db.query<{ subscription_id: string | null }>(
    'SELECT subscription_id FROM store_notifications WHERE app_id = $1 AND store = $2 AND notification_id = $3',
    [key.appId, key.store, key.notificationId],
  );
  return rows[0];
}

export interface SubscriptionListRow {
  id: string;
  store: Store;
  product_id: string;
  original_transaction_id: string | null;
  purchase_token: string | null;
  status: SubscriptionState;
  install_id: string | null;
  expires_at: Date | null;
  updated_at: Date;
  /** updated_at to the microsecond, for the cursor. */
  page_at: string;
}

/**
 * Most recently changed first. The cursor carries the sort key itself rather than an anchor row:
 * the row's updated_at may move while a client pages, and the next page must start where this
 * one ended.
 */
export const SUBSCRIPTIONS_KEYSET: Keyset = {
  kind: 'values',
  list: 'subscriptions',
  columns: [
    { column: 'updated_at', cast: 'timestamptz', direction: 'desc' },
    { column: 'id', cast: 'text', direction: 'desc' },
  ],
};

export function listSubscriptions(db: Queryable, orgId: string, page: PageRequest): Promise<SubscriptionListRow[]> {
  const after = keysetCondition(SUBSCRIPTIONS_KEYSET, page.after, 3);
  return db.query<SubscriptionListRow>(
    `SELECT id, store, product_id, original_transaction_id, purchase_token, status, install_id, expires_at, updated_at,
            ${exactTimestamp('updated_at')} AS page_at
     FROM subscriptions WHERE org_id = $1 AND ${after.sql} ORDER BY ${keysetOrder(SUBSCRIPTIONS_KEYSET)} LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}
