/**
 * Google Play Developer API: `purchases.subscriptionsv2.get` through @googleapis/androidpublisher,
 * authorised as the service account of GOOGLE_PLAY_CREDENTIALS. The access token is minted here
 * (a JWT-bearer grant to the key file's `token_uri`), so a test points both at a local fake.
 */
import { readFileSync } from 'node:fs';
import { importPKCS8, SignJWT } from 'jose';
import { HttpError } from '../http/errors';
import type { SubscriptionState } from './state-machine';

const SCOPE = 'https://www.googleapis.com/auth/androidpublisher';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** A notification waits on Google at most this long; Pub/Sub redelivers what was refused. */
const CALL_TIMEOUT_MS = 10_000;
/** A token is renewed this long before Google says it expires. */
const TOKEN_MARGIN_MS = 60_000;

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

interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | undefined;
  tokenUri: string;
}

/** The key file's fields the grant needs; a file without them stops the boot. */
export function readServiceAccount(path: string): ServiceAccount {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`GOOGLE_PLAY_CREDENTIALS: ${path} is not a JSON file: ${(error as Error).message}`);
  }
  const text = (key: string) => (typeof json[key] === 'string' && json[key] !== '' ? (json[key] as string) : undefined);
  const clientEmail = text('client_email');
  const privateKey = text('private_key');
  if (!clientEmail || !privateKey) throw new Error(`GOOGLE_PLAY_CREDENTIALS: ${path} has no client_email and private_key (a service account key is expected)`);
  return { clientEmail, privateKey, privateKeyId: text('private_key_id'), tokenUri: text('token_uri') ?? DEFAULT_TOKEN_URI };
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
  const account = readServiceAccount(options.credentialsPath);
  let token: { value: string; until: number } | undefined;
  let client: Promise<import('@googleapis/androidpublisher').androidpublisher_v3.Androidpublisher> | undefined;

  async function accessToken(): Promise<string> {
    if (token && token.until > Date.now()) return token.value;
    const key = await importPKCS8(account.privateKey, 'RS256');
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) })
      .setIssuer(account.clientEmail)
      .setAudience(account.tokenUri)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);
    let response: Response;
    try {
      response = await fetch(account.tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (error) {
      throw unavailable(`token endpoint: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (!response.ok || typeof body.access_token !== 'string') throw unavailable(`token endpoint answered ${response.status}`);
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3_600_000;
    token = { value: body.access_token, until: Date.now() + Math.max(0, lifetimeMs - TOKEN_MARGIN_MS) };
    return token.value;
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
        if (status === 401) token = undefined;
        throw unavailable(status ? `subscriptionsv2.get answered ${status}` : (error as Error).message);
      }
    },
  };
}
