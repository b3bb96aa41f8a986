import { t } from 'elysia';
import { CursorQuery } from '../http/pagination';
import type { SubscriptionState } from './state-machine';

/** The two stores, as the SDK subscription call and the `subscriptions.store` column name them. */
export type Store = 'apple' | 'google';

/** App Store Server Notifications V2: one JWS, kilobytes long with its three nested certificate chains, well inside the bound. */
export const AppleNotificationBody = t.Object({
  signedPayload: t.String({ minLength: 1, maxLength: 256 * 1024 }),
});
export type AppleNotificationBody = typeof AppleNotificationBody.static;

/** A Cloud Pub/Sub push message; `data` is the base64 of Google Play's DeveloperNotification. */
export const GoogleNotificationBody = t.Object({
  message: t.Object({
    data: t.String({ minLength: 1, maxLength: 64 * 1024 }),
    messageId: t.String({ minLength: 1, maxLength: 256 }),
  }),
  subscription: t.String({ minLength: 1, maxLength: 512 }),
});
export type GoogleNotificationBody = typeof GoogleNotificationBody.static;

const Token = t.String({ minLength: 1, maxLength: 4096 });
const Millis = t.Union([t.String({ pattern: '^[0-9]{1,15}$' }), t.Integer({ minimum: 0 })], { error: 'must be milliseconds since the epoch' });

/** The decoded `message.data` (Google's DeveloperNotification); unknown keys are kept for later versions. */
export const DeveloperNotification = t.Object({
  version: t.Optional(t.String({ maxLength: 32 })),
  packageName: t.String({ minLength: 1, maxLength: 255 }),
  eventTimeMillis: Millis,
  subscriptionNotification: t.Optional(
    t.Object({
      version: t.Optional(t.String({ maxLength: 32 })),
      notificationType: t.Integer({ minimum: 0, maximum: 1000 }),
      purchaseToken: Token,
      subscriptionId: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
    }),
  ),
  voidedPurchaseNotification: t.Optional(
    t.Object({
      purchaseToken: Token,
      orderId: t.Optional(t.String({ maxLength: 256 })),
      productType: t.Integer({ minimum: 0, maximum: 1000 }),
      refundType: t.Optional(t.Integer({ minimum: 0, maximum: 1000 })),
    }),
  ),
  oneTimeProductNotification: t.Optional(t.Object({})),
  testNotification: t.Optional(t.Object({})),
});
export type DeveloperNotification = typeof DeveloperNotification.static;

export const DEFAULT_SUBSCRIPTIONS_LIMIT = 100;
export const ListSubscriptionsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_SUBSCRIPTIONS_LIMIT })),
  cursor: CursorQuery,
});
export type ListSubscriptionsQuery = typeof ListSubscriptionsQuery.static;

/** One row of GET /api/v1/subscriptions. */
export interface SubscriptionView {
  id: string;
  store: Store;
  product_id: string;
  original_transaction_id: string | null;
  purchase_token: string | null;
  state: SubscriptionState;
  install_id: string | null;
  expires_at: string | null;
  updated_at: string;
}

/** What both receivers answer, the first time and on every replay. */
export interface NotificationAnswer {
  ok: true;
  subscription_id: string | null;
}
