import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, SignJWT } from 'jose';
import { KJUR } from 'jsrsasign';
import type { TestApp } from '../support/app';
import { tempDir } from '../support/temp-dir';

/** The extension OIDs Apple's chain carries: the intermediate's and the signing leaf's. */
export const APPLE_INTERMEDIATE_OID = '1.2.840.113635.100.6.2.1';
export const APPLE_LEAF_OID = '1.2.840.113635.100.6.11.1';

interface KeyPair {
  privateKey: KeyObject;
  privatePem: string;
  publicPem: string;
}

function ecKeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const asn1Time = (at: Date) => `${at.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`;
const DAY_MS = 86_400_000;

function certificate(input: { serial: string; subject: string; issuer: string; subjectKey: KeyPair; issuerKey: KeyPair; ca: boolean; oid?: string }): Buffer {
  const ext: unknown[] = [];
  if (input.ca) ext.push({ extname: 'basicConstraints', cA: true, critical: true });
  if (input.oid) ext.push({ extname: input.oid, extn: '0500' }); // the extension's value is an ASN.1 NULL
  const cert = new KJUR.asn1.x509.Certificate({
    version: 3,
    serial: { hex: input.serial },
    issuer: { str: input.issuer },
    subject: { str: input.subject },
    notbefore: asn1Time(new Date(Date.now() - 10 * 365 * DAY_MS)),
    notafter: asn1Time(new Date(Date.now() + 10 * 365 * DAY_MS)),
    sbjpubkey: input.subjectKey.publicPem,
    ext,
    sigalg: 'SHA256withECDSA',
    cakey: input.issuerKey.privatePem,
  } as never);
  return Buffer.from(cert.getEncodedHex(), 'hex');
}

export interface TestAppleCa {
  /** The root's PEM file, for APPLE_ROOT_CERTS. */
  rootPath: string;
  /** A JWS as the App Store signs it: ES256 with the leaf, x5c = leaf, intermediate, root. */
  sign(payload: Record<string, unknown>): Promise<string>;
}

/**
 * A root, an intermediate and a leaf shaped like Apple's chain. `withOids: false` leaves the
 * Apple extensions out (a chain the verifier must refuse even under a trusted root).
 */
export function testAppleCa(name = 'Test', options: { withOids?: boolean } = {}): TestAppleCa {
  const withOids = options.withOids ?? true;
  const root = ecKeyPair();
  const intermediate = ecKeyPair();
  const leaf = ecKeyPair();
  const rootDer = certificate({ serial: '01', subject: `/CN=${name} Root`, issuer: `/CN=${name} Root`, subjectKey: root, issuerKey: root, ca: true });
  const intermediateDer = certificate({
    serial: '02',
    subject: `/CN=${name} Intermediate`,
    issuer: `/CN=${name} Root`,
    subjectKey: intermediate,
    issuerKey: root,
    ca: true,
    oid: withOids ? APPLE_INTERMEDIATE_OID : undefined,
  });
  const leafDer = certificate({
    serial: '03',
    subject: `/CN=${name} Leaf`,
    issuer: `/CN=${name} Intermediate`,
    subjectKey: leaf,
    issuerKey: intermediate,
    ca: false,
    oid: withOids ? APPLE_LEAF_OID : undefined,
  });
  const rootPath = join(tempDir('apple-root'), 'root.pem');
  writeFileSync(rootPath, `-----BEGIN CERTIFICATE-----\n${rootDer.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`);
  const x5c = [leafDer, intermediateDer, rootDer].map((der) => der.toString('base64'));
  return {
    rootPath,
    sign: (payload) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', x5c }).sign(leaf.privateKey),
  };
}

export interface AppleTransaction {
  originalTransactionId: string;
  transactionId?: string;
  bundleId: string;
  productId?: string;
  environment?: string;
  price?: number;
  currency?: string;
  expiresDate?: number;
  offerDiscountType?: string;
  type?: string;
  revocationPercentage?: number;
}

/** A signed App Store notification; the transaction is signed by the same chain unless given as a JWS. */
export async function appleNotification(
  ca: TestAppleCa,
  input: {
    type: string;
    subtype?: string;
    uuid?: string;
    signedDate: number;
    bundleId: string;
    environment?: string;
    appAppleId?: number;
    transaction?: AppleTransaction | string;
  },
): Promise<string> {
  const environment = input.environment ?? 'Sandbox';
  const signedTransactionInfo =
    input.transaction === undefined
      ? undefined
      : typeof input.transaction === 'string'
        ? input.transaction
        : await ca.sign({
            transactionId: `${input.transaction.originalTransactionId}-${input.signedDate}`,
            productId: 'pro.monthly',
            type: 'Auto-Renewable Subscription',
            currency: 'USD',
            environment,
            signedDate: input.signedDate,
            ...input.transaction,
          });
  return ca.sign({
    notificationType: input.type,
    ...(input.subtype ? { subtype: input.subtype } : {}),
    notificationUUID: input.uuid ?? crypto.randomUUID(),
    version: '2.0',
    signedDate: input.signedDate,
    data: {
      bundleId: input.bundleId,
      environment,
      ...(input.appAppleId !== undefined ? { appAppleId: input.appAppleId } : {}),
      ...(signedTransactionInfo ? { signedTransactionInfo } : {}),
    },
  });
}

export const postApple = (t: TestApp, signedPayload: unknown) => t.request('/api/subscriptions/apple', { method: 'POST', json: { signedPayload } });

/** A Pub/Sub push body around a DeveloperNotification. */
export function pubsubPush(notification: Record<string, unknown>, messageId: string = crypto.randomUUID()) {
  return {
    message: { data: Buffer.from(JSON.stringify(notification)).toString('base64'), messageId, publishTime: new Date().toISOString() },
    subscription: 'projects/test/subscriptions/play-rtdn',
  };
}

export function subscriptionNotification(input: { packageName: string; type: number; token: string; at: number; productId?: string }) {
  return {
    version: '1.0',
    packageName: input.packageName,
    eventTimeMillis: String(input.at),
    subscriptionNotification: { version: '1.0', notificationType: input.type, purchaseToken: input.token, subscriptionId: input.productId ?? 'pro.monthly' },
  };
}

/** GOOGLE_PUBSUB_TOKEN of the apps that receive Google notifications in tests (pubsubEnv). */
export const PUSH_TOKEN = 'push-token-0123456789abcdef';
export const pubsubEnv = { GOOGLE_PUBSUB_TOKEN: PUSH_TOKEN } as const;

/** A push as Pub/Sub sends it to a pubsubEnv app: `?token=` in the URL, unless `query` replaces it. */
export const postGoogle = (t: TestApp, json: unknown, init: { query?: string; headers?: Record<string, string> } = {}) =>
  t.request(`/api/subscriptions/google${init.query ?? `?token=${PUSH_TOKEN}`}`, { method: 'POST', json, headers: init.headers });

export interface FakeGoogle {
  url: string;
  /** A service account key file whose token_uri is this server. */
  credentialsPath: string;
  /** The purchase Google answers for a token; absent tokens answer 404. */
  purchases: Map<string, Record<string, unknown>>;
  /** Status the subscriptions endpoint answers instead (500 to play an outage); 0 = normal. */
  failWith: { status: number };
  /** Requests seen: method, path and whether the bearer token was the one this server minted. */
  calls: { path: string; authorized: boolean }[];
  /** Signs an OIDC token as Pub/Sub's push would. */
  oidcToken(claims: Record<string, unknown>): Promise<string>;
  stop(): void;
}

/** Google's token endpoint, Play Developer API and OAuth certificates, on one local port. */
export function fakeGoogle(): FakeGoogle {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const oidc = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const accessToken = `ya29.${crypto.randomUUID()}`;
  const purchases = new Map<string, Record<string, unknown>>();
  const failWith = { status: 0 };
  const calls: FakeGoogle['calls'] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === '/token') {
        const form = new URLSearchParams(await request.text());
        const { jwtVerify } = await import('jose');
        try {
          await jwtVerify(form.get('assertion') ?? '', publicKey, { audience: `${origin}/token`, issuer: 'play@test.iam.gserviceaccount.com' });
        } catch {
          return Response.json({ error: 'invalid_grant' }, { status: 400 });
        }
        return Response.json({ access_token: accessToken, expires_in: 3600, token_type: 'Bearer' });
      }
      if (url.pathname === '/certs') return Response.json({ keys: [{ ...(await exportJWK(oidc.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
      const match = url.pathname.match(/^\/androidpublisher\/v3\/applications\/([^/]+)\/purchases\/subscriptionsv2\/tokens\/([^/]+)$/);
      if (!match) return new Response('not found', { status: 404 });
      calls.push({ path: url.pathname, authorized: request.headers.get('authorization') === `Bearer ${accessToken}` });
      if (request.headers.get('authorization') !== `Bearer ${accessToken}`) return Response.json({ error: { code: 401 } }, { status: 401 });
      if (failWith.status) return Response.json({ error: { code: failWith.status } }, { status: failWith.status });
      const purchase = purchases.get(decodeURIComponent(match[2]!));
      return purchase ? Response.json(purchase) : Response.json({ error: { code: 404, message: 'not found' } }, { status: 404 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const credentialsPath = join(tempDir('play-key'), 'service-account.json');
  writeFileSync(
    credentialsPath,
    JSON.stringify({
      type: 'service_account',
      client_email: 'play@test.iam.gserviceaccount.com',
      private_key_id: 'key-1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      token_uri: `${origin}/token`,
    }),
  );
  return {
    url: origin,
    credentialsPath,
    purchases,
    failWith,
    calls,
    oidcToken: (claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuedAt().setExpirationTime('5m').sign(oidc.privateKey),
    stop: () => server.stop(true),
  };
}

/** The events a subscription recorded, in the order they were written. */
export async function subscriptionEvents(t: TestApp, subscriptionId: string) {
  return t.db.query<{ name: string; value: number | null; currency: string | null; install_id: string | null; params: Record<string, unknown> }>(
    `SELECT name, value, currency, install_id, params FROM events WHERE params->>'subscription_id' = $1 ORDER BY _seq`,
    [subscriptionId],
  );
}

export async function subscriptionRow(t: TestApp, id: string) {
  const rows = await t.db.query<{ status: string; is_trial: boolean; expires_at: Date | null; install_id: string | null; price_micros: number | null; currency: string | null; product_id: string; environment: string }>(
    'SELECT status, is_trial, expires_at, install_id, price_micros, currency, product_id, environment FROM subscriptions WHERE id = $1',
    [id],
  );
  return rows[0];
}

/** Rows in every table these endpoints write, to prove a refusal stored nothing. */
export async function storedCounts(t: TestApp) {
  const rows = await t.db.query<{ subscriptions: number; events: number; notifications: number }>(
    `SELECT (SELECT count(*)::int FROM subscriptions) AS subscriptions, (SELECT count(*)::int FROM events) AS events,
            (SELECT count(*)::int FROM store_notifications) AS notifications`,
  );
  return rows[0]!;
}
