/**
 * What both store receivers share: the notification's app, the idempotent application of one
 * notification to its subscription (state machine, event, record) and the subscriptions list.
 */
import type { Db, Queryable } from '../db/db';
import { HttpError } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { newId } from '../shared/ids';
import { insertEvent } from '../sdk/sdk.repo';
import { transition, type ChangeKind, type Snapshot, type SubscriptionState } from './state-machine';
import { DEFAULT_SUBSCRIPTIONS_LIMIT, type ListSubscriptionsQuery, type NotificationAnswer, type Store, type SubscriptionView } from './subscriptions.model';
import {
  appsHolding,
  claimNotification,
  findStoreApps,
  insertUnlinkedSubscription,
  listSubscriptions,
  SUBSCRIPTIONS_KEYSET,
  lockSubscription,
  receivedNotification,
  settleNotification,
  updateSubscription,
  type PurchaseKey,
  type StoreApp,
  type SubscriptionRecord,
} from './subscriptions.repo';

export interface SubscriptionsDeps {
  db: Db;
}

/**
 * The app a bundle id or package name names. Bundle ids are not unique across organizations, so
 * when several apps carry it the one already holding the purchase wins; otherwise nobody does.
 */
export async function resolveStoreApp(db: Queryable, store: Store, bundleId: string, key: PurchaseKey | null): Promise<StoreApp | null> {
  const apps = await findStoreApps(db, store, bundleId);
  if (apps.length <= 1) return apps[0] ?? null;
  const holders = key ? await appsHolding(db, apps.map((app) => app.id), key) : [];
  if (holders.length === 1) return apps.find((app) => app.id === holders[0]) ?? null;
  throw new HttpError(409, { error: 'several apps have this bundle id or package name, and none of them alone holds the purchase' });
}

/** One store notification in store-neutral terms, ready for the state machine. */
export interface StoreNotice {
  store: Store;
  app: StoreApp;
  notificationId: string;
  type: string;
  subtype: string | null;
  signedAt: Date;
  /** null: the notification is about no purchase (a test); it is recorded only. */
  purchase: { key: PurchaseKey; productId: string | null } | null;
  /** null: a type that moves nothing; recorded and ignored. */
  kind: ChangeKind | null;
  isTrial?: boolean;
  expiresAt?: Date | null;
  /** What this change charged (or, for a refund, what was refunded before `share`), in micros; null: the stored price. */
  chargedMicros: number | null;
  /** The purchase's price from now on, in micros; null keeps the stored one. */
  priceMicros: number | null;
  currency: string | null;
  /** The refunded share of the price, 0 to 1. */
  share?: number;
  sandbox: boolean;
  storeState?: SubscriptionState | null;
  /** Kept on the event: the store's transaction or order id. */
  detail: Record<string, string>;
}

const INITIAL: Snapshot = { state: 'active', isTrial: false, lastSignedAt: null, expiresAt: null };

const snapshotOf = (row: SubscriptionRecord): Snapshot => ({ state: row.status, isTrial: row.is_trial, lastSignedAt: row.last_signed_at, expiresAt: row.expires_at });

/** Money of a change in currency units; none for a store's test purchase. */
function amountOf(notice: StoreNotice, row: SubscriptionRecord): number | null {
  const price = notice.chargedMicros ?? row.price_micros;
  if (notice.sandbox || price === null) return null;
  return Math.round(Number(price) * (notice.share ?? 1)) / 1_000_000;
}

/**
 * Applies a notification once: its id is claimed first, so a replay (or a concurrent duplicate,
 * which waits on the claim) answers what the first answered and changes nothing.
 */
export async function applyNotice({ db }: SubscriptionsDeps, notice: StoreNotice): Promise<NotificationAnswer> {
  const idKey = { appId: notice.app.id, store: notice.store, notificationId: notice.notificationId };
  return db.transaction(async (tx) => {
    const claimed = await claimNotification(tx, { ...idKey, orgId: notice.app.org_id, type: notice.type, subtype: notice.subtype, signedAt: notice.signedAt });
    if (!claimed) return { ok: true, subscription_id: (await receivedNotification(tx, idKey))?.subscription_id ?? null };
    if (!notice.purchase) return { ok: true, subscription_id: null };
    let row = await lockSubscription(tx, notice.app.id, notice.purchase.key);
    let created = false;
    if (!row && notice.kind) {
      const id = newId();
      await insertUnlinkedSubscription(tx, {
        id,
        orgId: notice.app.org_id,
        appId: notice.app.id,
        key: notice.purchase.key,
        productId: notice.purchase.productId ?? '',
        environment: notice.sandbox ? 'sandbox' : 'production',
        occurredAt: notice.signedAt,
      });
      row = await lockSubscription(tx, notice.app.id, notice.purchase.key);
      created = row?.id === id;
    }
    if (!row || !notice.kind) {
      await settleNotification(tx, idKey, row?.id ?? null, 'ignored');
      return { ok: true, subscription_id: row?.id ?? null };
    }
    const current = created ? INITIAL : snapshotOf(row);
    const step = transition(current, {
      kind: notice.kind,
      signedAt: notice.signedAt,
      // A store that does not say (Google without its API) leaves the SDK call's trial flag standing.
      isTrial: notice.isTrial ?? (created ? undefined : row.is_trial),
      expiresAt: notice.expiresAt,
      amount: amountOf(notice, row),
      created,
      storeState: notice.storeState,
    });
    const productId = notice.purchase.productId ?? row.product_id;
    if (step.applied) {
      await updateSubscription(tx, row.id, {
        status: step.next.state,
        isTrial: step.next.isTrial,
        expiresAt: step.next.expiresAt,
        lastSignedAt: step.next.lastSignedAt,
        productId,
        priceMicros: notice.priceMicros ?? row.price_micros,
        currency: notice.priceMicros !== null ? notice.currency ?? row.currency : row.currency,
        environment: notice.sandbox ? 'sandbox' : 'production',
      });
    }
    if (step.event) {
      await insertEvent(tx, {
        id: newId(),
        orgId: row.org_id,
        appId: row.app_id,
        installId: row.install_id,
        deviceIdHash: row.device_id_hash,
        name: step.event.name,
        value: step.event.value,
        currency: step.event.value === null ? null : notice.currency ?? row.currency,
        // A store's server sent it, not the device: no address to place.
        region: null,
        params: {
          subscription_id: row.id,
          store: notice.store,
          product_id: productId,
          notification: notice.subtype ? `${notice.type}/${notice.subtype}` : notice.type,
          from_state: created ? null : current.state,
          to_state: step.next.state,
          ...(step.applied ? {} : { late: true }),
          ...(notice.sandbox ? { sandbox: true } : {}),
          ...notice.detail,
        },
        occurredAt: notice.signedAt,
      });
    }
    await settleNotification(tx, idKey, row.id, step.applied ? 'applied' : 'stale');
    return { ok: true, subscription_id: row.id };
  });
}

/** A replay found before any network call (the Play API) is made for it; undefined when new. */
export async function earlierAnswer({ db }: SubscriptionsDeps, key: { appId: string; store: Store; notificationId: string }): Promise<NotificationAnswer | undefined> {
  const earlier = await receivedNotification(db, key);
  return earlier ? { ok: true, subscription_id: earlier.subscription_id } : undefined;
}

export function listOrgSubscriptions({ db }: Pick<SubscriptionsDeps, 'db'>, orgId: string, query: ListSubscriptionsQuery): Promise<Page<SubscriptionView>> {
  return readPage({
    keyset: SUBSCRIPTIONS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_SUBSCRIPTIONS_LIMIT,
    fetch: (page) => listSubscriptions(db, orgId, page),
    keyOf: (row) => [row.page_at, row.id],
    view: (row) => ({
    id: row.id,
    store: row.store,
    product_id: row.product_id,
    original_transaction_id: row.original_transaction_id,
    purchase_token: row.purchase_token,
    state: row.status,
    install_id: row.install_id,
      expires_at: row.expires_at?.toISOString() ?? null,
      updated_at: row.updated_at.toISOString(),
    }),
  });
}
