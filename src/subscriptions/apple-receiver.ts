/**
 * POST /api/subscriptions/apple: verify the signed payload, find its app, apply it. Every
 * refusal (bad JWS, wrong chain, unknown bundle id) is the same 400 and stores nothing.
 */
import { HttpError } from '../http/errors';
import {
  appleChangeKind,
  appleMicros,
  claimOf,
  isSubscriptionTransaction,
  refundShare,
  type AppleVerifier,
  type VerifiedAppleNotification,
} from './apple-notifications';
import type { NotificationAnswer } from './subscriptions.model';
import { applyNotice, resolveStoreApp, type StoreNotice, type SubscriptionsDeps } from './subscriptions.service';

export const invalidSignedPayload = () => new HttpError(400, { error: 'invalid signed payload' });

/** Kinds whose transaction is a payment: its price is charged now and is the price from now on. */
const CHARGES = new Set(['purchased', 'resubscribed', 'renewed', 'recovered']);

export async function receiveAppleNotification(deps: SubscriptionsDeps & { verifier: AppleVerifier }, signedPayload: string): Promise<NotificationAnswer> {
  const claim = claimOf(signedPayload);
  if (!claim) throw invalidSignedPayload();
  const verified = await deps.verifier.verify(signedPayload, claim);
  if (!verified) throw invalidSignedPayload();
  const originalTransactionId = verified.transaction?.originalTransactionId;
  const key = originalTransactionId ? ({ store: 'apple', originalTransactionId } as const) : null;
  const app = await resolveStoreApp(deps.db, 'apple', claim.bundleId, key);
  if (!app) throw invalidSignedPayload();
  return applyNotice(deps, appleNotice(verified, app, key));
}

function appleNotice(n: VerifiedAppleNotification, app: StoreNotice['app'], key: { store: 'apple'; originalTransactionId: string } | null): StoreNotice {
  const transaction = n.transaction && isSubscriptionTransaction(n.transaction) ? n.transaction : null;
  const kind = transaction ? appleChangeKind(n.type, n.subtype) : null;
  const isTrial = transaction?.offerDiscountType === 'FREE_TRIAL';
  const price = appleMicros(transaction?.price);
  const charges = kind !== null && CHARGES.has(kind);
  return {
    store: 'apple',
    app,
    notificationId: n.notificationUUID,
    type: n.type,
    subtype: n.subtype,
    signedAt: n.signedAt,
    purchase: transaction && key ? { key, productId: transaction.productId ?? null } : null,
    kind,
    isTrial,
    expiresAt: typeof transaction?.expiresDate === 'number' ? new Date(transaction.expiresDate) : undefined,
    chargedMicros: price,
    priceMicros: charges && !isTrial ? price : null,
    currency: typeof transaction?.currency === 'string' ? transaction.currency.toUpperCase() : null,
    share: kind === 'refunded' && transaction ? refundShare(transaction) : undefined,
    sandbox: n.environment === 'Sandbox',
    detail: transaction?.transactionId ? { transaction_id: transaction.transactionId } : {},
  };
}
