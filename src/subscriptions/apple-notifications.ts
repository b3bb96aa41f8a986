/**
 * App Store Server Notifications V2: what a signedPayload claims, its verification with Apple's
 * SignedDataVerifier (online checks off) and what it means for the state machine
 * (docs/subscriptions.md, "App Store").
 */
import type {
  Environment,
  JWSRenewalInfoDecodedPayload,
  JWSTransactionDecodedPayload,
  ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
} from '@apple/app-store-server-library';
import type { ChangeKind } from './state-machine';

/** The two environments Apple signs; Xcode and LocalTesting payloads are not signed by Apple and are refused. */
export type AppleEnvironment = 'Production' | 'Sandbox';

/** What a payload says about itself before it is verified: which app's verifier to use. */
export interface AppleClaim {
  bundleId: string;
  environment: AppleEnvironment;
  appAppleId: number | undefined;
}

export interface VerifiedAppleNotification {
  notificationUUID: string;
  type: string;
  subtype: string | null;
  signedAt: Date;
  environment: AppleEnvironment;
  transaction: JWSTransactionDecodedPayload | null;
  renewal: JWSRenewalInfoDecodedPayload | null;
}

const object = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** The JWS payload, parsed without checking anything; null when it is not a JWS of a JSON object. */
function unverifiedPayload(jws: string): Record<string, unknown> | null {
  const parts = jws.split('.');
  if (parts.length !== 3) return null;
  try {
    return object(JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')));
  } catch {
    return null;
  }
}

/** Where the library reads the app from, in its order: data, summary, externalPurchaseToken, appData. */
export function claimOf(signedPayload: string): AppleClaim | null {
  const payload = unverifiedPayload(signedPayload);
  if (!payload) return null;
  const token = object(payload.externalPurchaseToken);
  const source = object(payload.data) ?? object(payload.summary) ?? token ?? object(payload.appData);
  if (!source || typeof source.bundleId !== 'string' || source.bundleId === '') return null;
  const environment = source === token ? (String(token.externalPurchaseId ?? '').startsWith('SANDBOX') ? 'Sandbox' : 'Production') : source.environment;
  if (environment !== 'Production' && environment !== 'Sandbox') return null;
  const appAppleId = typeof source.appAppleId === 'number' ? source.appAppleId : undefined;
  if (environment === 'Production' && appAppleId === undefined) return null;
  return { bundleId: source.bundleId, environment, appAppleId };
}

export interface AppleVerifier {
  /** The verified notification, or null when the signature, the chain or the app does not hold. */
  verify(signedPayload: string, claim: AppleClaim): Promise<VerifiedAppleNotification | null>;
}

/** At most this many verifiers are kept (one per bundle id, environment and Apple app id). */
const MAX_VERIFIERS = 256;

export function createAppleVerifier(roots: readonly Buffer[]): AppleVerifier {
  // Loaded on the first notification: a node that never receives one never pays for the import.
  let library: Promise<typeof import('@apple/app-store-server-library')> | undefined;
  const verifiers = new Map<string, SignedDataVerifier>();
  const verifierFor = async (claim: AppleClaim) => {
    const key = `${claim.environment}\n${claim.appAppleId ?? ''}\n${claim.bundleId}`;
    let verifier = verifiers.get(key);
    if (!verifier) {
      const { SignedDataVerifier } = await (library ??= import('@apple/app-store-server-library'));
      if (verifiers.size >= MAX_VERIFIERS) verifiers.clear();
      // Apps carry no Apple app id: the bundle id names the app, so the payload's own id is expected.
      verifier = new SignedDataVerifier([...roots], false, claim.environment as Environment, claim.bundleId, claim.appAppleId);
      verifiers.set(key, verifier);
    }
    return verifier;
  };
  return {
    async verify(signedPayload, claim) {
      const verifier = await verifierFor(claim);
      let notification: ResponseBodyV2DecodedPayload;
      try {
        notification = await verifier.verifyAndDecodeNotification(signedPayload);
      } catch {
        return null;
      }
      if (typeof notification.notificationUUID !== 'string' || notification.notificationUUID === '') return null;
      if (typeof notification.signedDate !== 'number' || typeof notification.notificationType !== 'string') return null;
      let transaction: JWSTransactionDecodedPayload | null = null;
      let renewal: JWSRenewalInfoDecodedPayload | null = null;
      try {
        // The nested JWSs are verified the same way; the transaction must be this bundle's.
        if (notification.data?.signedTransactionInfo) transaction = await verifier.verifyAndDecodeTransaction(notification.data.signedTransactionInfo);
        if (notification.data?.signedRenewalInfo) renewal = await verifier.verifyAndDecodeRenewalInfo(notification.data.signedRenewalInfo);
      } catch {
        return null;
      }
      return {
        notificationUUID: notification.notificationUUID,
        type: notification.notificationType,
        subtype: notification.subtype ?? null,
        signedAt: new Date(notification.signedDate),
        environment: claim.environment,
        transaction,
        renewal,
      };
    },
  };
}

const AUTO_RENEWABLE = 'Auto-Renewable Subscription';

/** The state machine's reading of a notification type and subtype; null: recorded and ignored. */
export function appleChangeKind(type: string, subtype: string | null): ChangeKind | null {
  switch (type) {
    case 'SUBSCRIBED':
      return subtype === 'RESUBSCRIBE' ? 'resubscribed' : 'purchased';
    case 'DID_RENEW':
      return subtype === 'BILLING_RECOVERY' ? 'recovered' : 'renewed';
    case 'DID_CHANGE_RENEWAL_STATUS':
      if (subtype === 'AUTO_RENEW_DISABLED') return 'auto_renew_off';
      return subtype === 'AUTO_RENEW_ENABLED' ? 'auto_renew_on' : null;
    case 'DID_FAIL_TO_RENEW':
      return subtype === 'GRACE_PERIOD' ? 'grace_period' : 'billing_retry';
    case 'GRACE_PERIOD_EXPIRED':
      return 'billing_retry';
    case 'EXPIRED':
      return 'expired';
    case 'REFUND':
      return 'refunded';
    case 'REFUND_REVERSED':
      return 'refund_reversed';
    case 'REVOKE':
      return 'revoked';
    case 'RENEWAL_EXTENDED':
      return 'extended';
    default:
      return null;
  }
}

/** Whether the transaction is an auto-renewable subscription's (a refunded consumable is not). */
export const isSubscriptionTransaction = (transaction: JWSTransactionDecodedPayload) =>
  transaction.type === undefined || transaction.type === AUTO_RENEWABLE;

/** Apple prices are in milliunits of the currency. */
export const appleMicros = (milliunits: number | undefined) => (typeof milliunits === 'number' && Number.isFinite(milliunits) ? Math.round(milliunits * 1000) : null);

/** The share of a refund: the whole price unless a prorated percentage (in milliunits of a percent) says less. */
export function refundShare(transaction: JWSTransactionDecodedPayload): number {
  const percentage = transaction.revocationPercentage;
  return typeof percentage === 'number' && percentage >= 0 && percentage <= 100_000 ? percentage / 100_000 : 1;
}
