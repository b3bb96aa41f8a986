/**
 * Google Play real-time developer notifications: the base64 `message.data` of a Pub/Sub push,
 * decoded and checked field by field, and what each notification type means for the state
 * machine (docs/subscriptions.md, "Google Play").
 */
import { Value } from '@sinclair/typebox/value';
import { fieldError, validationError } from '../http/errors';
import type { ChangeKind } from './state-machine';
import { DeveloperNotification } from './subscriptions.model';

const DATA_FIELD = 'message.data';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const REQUIRED = 'Expected required property';

/** The notification inside a push, or a 400 naming the field (`message.data`, `message.data.packageName` ...). */
export function decodeDeveloperNotification(data: string): DeveloperNotification {
  if (!BASE64.test(data) && !(BASE64URL.test(data) && data.length % 4 !== 1)) throw fieldError(DATA_FIELD, 'must be base64');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(data, BASE64.test(data) ? 'base64' : 'base64url').toString('utf8'));
  } catch {
    throw fieldError(DATA_FIELD, 'must be the base64 of a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw fieldError(DATA_FIELD, 'must be the base64 of a JSON object');
  const problems: Record<string, string[]> = {};
  for (const issue of Value.Errors(DeveloperNotification, parsed)) {
    const field = `${DATA_FIELD}${issue.path.replaceAll('/', '.')}`;
    const message = (issue.schema as { error?: string }).error ?? issue.message;
    const messages = (problems[field] ??= []);
    if (!messages.includes(message)) messages.push(message);
  }
  // A missing field also fails its type check; "required" says all there is to say.
  for (const [field, messages] of Object.entries(problems)) if (messages.includes(REQUIRED)) problems[field] = [REQUIRED];
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return parsed as DeveloperNotification;
}

/** SubscriptionNotification.notificationType, by number. */
export const GOOGLE_SUBSCRIPTION_TYPES: Readonly<Record<number, string>> = {
  1: 'SUBSCRIPTION_RECOVERED',
  2: 'SUBSCRIPTION_RENEWED',
  3: 'SUBSCRIPTION_CANCELED',
  4: 'SUBSCRIPTION_PURCHASED',
  5: 'SUBSCRIPTION_ON_HOLD',
  6: 'SUBSCRIPTION_IN_GRACE_PERIOD',
  7: 'SUBSCRIPTION_RESTARTED',
  8: 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED',
  9: 'SUBSCRIPTION_DEFERRED',
  10: 'SUBSCRIPTION_PAUSED',
  11: 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED',
  12: 'SUBSCRIPTION_REVOKED',
  13: 'SUBSCRIPTION_EXPIRED',
  17: 'SUBSCRIPTION_ITEMS_CHANGED',
  18: 'SUBSCRIPTION_CANCELLATION_SCHEDULED',
  19: 'SUBSCRIPTION_PRICE_CHANGE_UPDATED',
  20: 'SUBSCRIPTION_PENDING_PURCHASE_CANCELED',
  22: 'SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED',
};

const KINDS: Readonly<Record<number, ChangeKind>> = {
  1: 'recovered',
  2: 'renewed',
  3: 'auto_renew_off',
  4: 'purchased',
  5: 'billing_retry',
  6: 'grace_period',
  7: 'auto_renew_on',
  9: 'extended',
  10: 'paused',
  12: 'revoked',
  13: 'expired',
};

export const googleTypeName = (notificationType: number) => GOOGLE_SUBSCRIPTION_TYPES[notificationType] ?? `SUBSCRIPTION_NOTIFICATION_${notificationType}`;

/** The state machine's reading of a subscription notification type; null: recorded and ignored. */
export const googleChangeKind = (notificationType: number): ChangeKind | null => KINDS[notificationType] ?? null;

/** VoidedPurchaseNotification.productType of a subscription (2 is a one-time product). */
export const VOIDED_SUBSCRIPTION = 1;
