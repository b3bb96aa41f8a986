/**
 * Google Play Developer API: `purchases.subscriptionsv2.get` through @googleapis/androidpublisher,
 * authorised as the service account of GOOGLE_PLAY_CREDENTIALS: its token comes from the key file's
 * `token_uri` (src/shared/google-service-account.ts), so a test points both at a local fake.
 */
import { HttpError } from '../http/errors';
import { createServiceAccountTokens, readServiceAccountFile, type ServiceAccount } from '../shared/google-service-account';
import type { SubscriptionState } from './state-machine';

const SCOPE = 'https://www.googleapis.com/auth/androidpublisher';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** A notification waits on Google at most this long; Pub/Sub redelivers what was refused. */
const CALL_TIMEOUT_MS = 10_000;

/** A purchase as Google Play reports it now. */
export interface PlayPurchase {
  state: SubscriptionState | null;
  expiresAt: Date | null;
  priceMicros: number | null;
  currency: string | null;
  isTrial: boolean;
  /** A licence tester's purchase: no money moved. */
  sandbox: boolean;
  productId: string | null;
}

export interface PlayApi {
  /** null: Google does not know the token for this package (a forged or foreign notification). */
  subscription(packageName: string, purchaseToken: string): Promise<PlayPurchase | null>;
}

/** The key file of GOOGLE_PLAY_CREDENTIALS; one that is not a service account's stops the boot. */
export function readPlayAccount(path: string): ServiceAccount {
  try {
    return readServiceAccountFile(path);
  } catch (error) {
    throw new Error(`GOOGLE_PLAY_CREDENTIALS: ${path} ${(error as Error).message}`);
  }
}

const STATES: Readonly<Record<string, SubscriptionState>> = {
  SUBSCRIPTION_STATE_ACTIVE: 'active',
  SUBSCRIPTION_STATE_CANCELED: 'cancelled',
  SUBSCRIPTION_STATE_IN_GRACE_PERIOD: 'grace_period',
  SUBSCRIPTION_STATE_ON_HOLD: 'billing_retry',
  SUBSCRIPTION_STATE_PAUSED: 'paused',
  SUBSCRIPTION_STATE_EXPIRED: 'expired',
};

interface Money {
  currencyCode?: string | null;
  units?: string | null;
  nanos?: number | null;
}

function micros(money: Money | undefined): number | null {
  if (!money || money.units === undefined || money.units === null || !/^-?[0-9]{1,15}$/.test(money.units)) return null;
  return Number(money.units) * 1_000_000 + Math.round((money.nanos ?? 0) / 1000);
}

/** A SubscriptionPurchaseV2 in the state machine's terms; pending purchases give no state. */
export function playPurchaseOf(purchase: {
  subscriptionState?: string | null;
  testPurchase?: object | null;
  lineItems?: { productId?: string | null; expiryTime?: string | null; offerPhase?: { freeTrial?: object | null } | null; autoRenewingPlan?: { recurringPrice?: Money } | null }[];
}): PlayPurchase {
  const items = purchase.lineItems ?? [];
  const expiries = items.map((item) => Date.parse(item.expiryTime ?? '')).filter((ms) => Number.isFinite(ms));
  const first = items[0];
  const isTrial = items.some((item) => Boolean(item.offerPhase?.freeTrial));
  const mapped = STATES[purchase.subscriptionState ?? ''] ?? null;
  return {
    state: mapped === 'active' && isTrial ? 'trial' : mapped,
    expiresAt: expiries.length > 0 ? new Date(Math.max(...expiries)) : null,
    priceMicros: micros(first?.autoRenewingPlan?.recurringPrice),
    currency: first?.autoRenewingPlan?.recurringPrice?.currencyCode ?? null,
    isTrial,
    sandbox: Boolean(purchase.testPurchase),
    productId: first?.productId ?? null,
  };
}

/** Pub/Sub redelivers a push answered 503; why goes to the log, not to the caller. */
function unavailable(why: string): HttpError {
  console.error(`google play api unavailable: ${why}`);
  return new HttpError(503, { error: 'google play api unavailable' });
}

export function createPlayApi(options: { credentialsPath: string; rootUrl: string }): PlayApi {
  const account = readPlayAccount(options.credentialsPath);
  const tokens = createServiceAccountTokens({ account, tokenUrl: account.tokenUri ?? DEFAULT_TOKEN_URI, scope: SCOPE, timeoutMs: CALL_TIMEOUT_MS });
  let client: Promise<import('@googleapis/androidpublisher').androidpublisher_v3.Androidpublisher> | undefined;

  async function accessToken(): Promise<string> {
    const answer = await tokens.accessToken();
    if (!answer.ok) throw unavailable(answer.reason);
    return answer.token;
  }

  return {
    async subscription(packageName, purchaseToken) {
      // Loaded on first use: nodes without Play credentials never pay for the client's import.
      client ??= import('@googleapis/androidpublisher').then(({ androidpublisher }) => androidpublisher({ version: 'v3', rootUrl: options.rootUrl }));
      const api = await client;
      const authorization = `Bearer ${await accessToken()}`;
      try {
        const response = await api.purchases.subscriptionsv2.get(
          { packageName, token: purchaseToken },
          { headers: { authorization }, retry: false, timeout: CALL_TIMEOUT_MS },
        );
        return playPurchaseOf(response.data);
      } catch (error) {
        const status = (error as { status?: number; response?: { status?: number } }).status ?? (error as { response?: { status?: number } }).response?.status;
        if (status === 400 || status === 404 || status === 410) return null;
        if (status === 401) tokens.invalidate();
        throw unavailable(status ? `subscriptionsv2.get answered ${status}` : (error as Error).message);
      }
    },
  };
}
