/**
 * POST /api/subscriptions/google: a Pub/Sub push of a Google Play real-time developer
 * notification, for the app whose package name it carries. With Play credentials the purchase is
 * read from Google and its state wins; without them the notification type alone drives the state machine.
 */
import { HttpError, unauthorized } from '../http/errors';
import { decodeDeveloperNotification, googleChangeKind, googleTypeName, VOIDED_SUBSCRIPTION } from './google-notifications';
import type { PlayApi, PlayPurchase } from './google-play';
import type { Clock } from '../shared/ids';
import type { PushCheck } from './pubsub-auth';
import type { ChangeKind } from './state-machine';
import type { DeveloperNotification, GoogleNotificationBody, NotificationAnswer } from './subscriptions.model';
import { applyNotice, earlierAnswer, resolveStoreApp, type StoreNotice, type SubscriptionsDeps } from './subscriptions.service';

export interface GoogleReceiverDeps extends SubscriptionsDeps {
  clock: Clock;
  pushCheck: PushCheck;
  /** Absent without GOOGLE_PLAY_CREDENTIALS. */
  playApi: PlayApi | undefined;
}

/** Kinds that mean a payment was taken: Google's recurring price is what was charged. */
const CHARGES: ReadonlySet<ChangeKind> = new Set(['purchased', 'renewed', 'recovered']);

interface Parsed {
  type: string;
  kind: ChangeKind | null;
  purchaseToken: string | null;
  productId: string | null;
  detail: Record<string, string>;
}

function parse(notification: DeveloperNotification): Parsed {
  const subscription = notification.subscriptionNotification;
  if (subscription) {
    return {
      type: googleTypeName(subscription.notificationType),
      kind: googleChangeKind(subscription.notificationType),
      purchaseToken: subscription.purchaseToken,
      productId: subscription.subscriptionId ?? null,
      detail: {},
    };
  }
  const voided = notification.voidedPurchaseNotification;
  if (voided) {
    return {
      type: 'VOIDED_PURCHASE',
      kind: voided.productType === VOIDED_SUBSCRIPTION ? 'refunded' : null,
      purchaseToken: voided.productType === VOIDED_SUBSCRIPTION ? voided.purchaseToken : null,
      productId: null,
      detail: voided.orderId ? { order_id: voided.orderId } : {},
    };
  }
  return { type: notification.oneTimeProductNotification ? 'ONE_TIME_PRODUCT' : 'UNKNOWN', kind: null, purchaseToken: null, productId: null, detail: {} };
}

export async function receiveGoogleNotification(deps: GoogleReceiverDeps, request: Request, body: GoogleNotificationBody): Promise<NotificationAnswer> {
  if (!(await deps.pushCheck(request))) throw unauthorized();
  const notification = decodeDeveloperNotification(body.message.data);
  if (notification.testNotification) return { ok: true, subscription_id: null };
  const parsed = parse(notification);
  const key = parsed.purchaseToken ? ({ store: 'google', purchaseToken: parsed.purchaseToken } as const) : null;
  const app = await resolveStoreApp(deps.db, 'google', notification.packageName, key);
  if (!app) {
    // Acknowledged: Pub/Sub redelivers anything but a 2xx for days, and no app here is its owner.
    console.warn(`google play notification for ${JSON.stringify(notification.packageName)}: no android app has this package name; acknowledged, nothing stored`);
    return { ok: true, subscription_id: null };
  }
  const idKey = { appId: app.id, store: 'google', notificationId: body.message.messageId } as const;
  const earlier = await earlierAnswer(deps, idKey);
  if (earlier) return earlier;
  let purchase: PlayPurchase | null = null;
  if (deps.playApi && key && parsed.kind) {
    purchase = await deps.playApi.subscription(notification.packageName, key.purchaseToken);
    if (!purchase) throw new HttpError(400, { error: 'google play does not know this purchase token' });
  }
  const notice: StoreNotice = {
    store: 'google',
    app,
    notificationId: body.message.messageId,
    type: parsed.type,
    subtype: null,
    // Nothing signs Google's event time: one in the future would make every later notification look stale.
    signedAt: new Date(Math.min(Number(notification.eventTimeMillis), deps.clock().getTime())),
    purchase: key ? { key, productId: purchase?.productId ?? parsed.productId } : null,
    kind: parsed.kind,
    isTrial: purchase ? purchase.isTrial : undefined,
    expiresAt: purchase?.expiresAt ?? undefined,
    chargedMicros: purchase && parsed.kind && CHARGES.has(parsed.kind) ? purchase.priceMicros : null,
    priceMicros: purchase?.priceMicros ?? null,
    currency: purchase?.currency ?? null,
    sandbox: purchase?.sandbox ?? false,
    storeState: purchase?.state ?? null,
    detail: parsed.detail,
  };
  return applyNotice(deps, notice);
}
