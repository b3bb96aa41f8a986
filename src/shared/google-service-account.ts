/**
 * A Google service account: its key file, read and checked once, and its access tokens, a JWT
 * signed with its key (RS256) traded at a token endpoint (the JWT-bearer grant, RFC 7523) and kept
 * until shortly before they expire. FCM and the Play Developer API both authorise this way. The
 * token endpoint is a parameter, not Google's fixed URL, so an operator or a test can move it.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { importPKCS8, SignJWT } from 'jose';

/** The key file's fields a grant needs, as the JSON file Google issues them. */
export interface ServiceAccount {
  clientEmail: string;
  /** PKCS #8 PEM of the RSA key the assertion is signed with. */
  privateKey: string;
  privateKeyId: string | null;
  projectId: string | null;
  /** The file's `token_uri`, when it names one. */
  tokenUri: string | null;
}

/**
 * Reads a service-account key file. Errors say what is wrong in a phrase that follows the file's
 * name ("is not a JSON file"), never what the file holds: it holds a private key.
 */
export function readServiceAccountFile(path: string): ServiceAccount {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error('is not a JSON file');
  }
  const field = (name: string) => (typeof json?.[name] === 'string' && json[name] !== '' ? (json[name] as string) : null);
  const clientEmail = field('client_email');
  const privateKey = field('private_key');
  if (json?.type !== 'service_account' || !clientEmail || !privateKey) {
    throw new Error('is not a service-account key file (type "service_account" with client_email and private_key)');
  }
  if (!isRsaPrivateKey(privateKey)) throw new Error('holds a private_key that is not an RSA private key');
  return { clientEmail, privateKey, privateKeyId: field('private_key_id'), projectId: field('project_id'), tokenUri: field('token_uri') };
}

function isRsaPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

/** A token, or why there is none: `retryable` when the endpoint was out of reach or busy (429, 5xx). */
export type AccessTokenAnswer = { ok: true; token: string } | { ok: false; retryable: boolean; reason: string };

export interface ServiceAccountTokens {
  accessToken(signal?: AbortSignal): Promise<AccessTokenAnswer>;
  /** The API refused the token: the next call exchanges a new one. */
  invalidate(): void;
}

const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token this close to its expiry is renewed rather than sent. */
const RENEW_BEFORE_MS = 60_000;
/** Google's tokens live an hour; an answer without `expires_in` is taken to. */
const DEFAULT_LIFETIME_S = 3600;

/** Concurrent callers share one exchange; the token is kept until RENEW_BEFORE_MS before it expires. */
export function createServiceAccountTokens(options: {
  account: ServiceAccount;
  tokenUrl: string;
  scope: string;
  timeoutMs: number;
  now?: () => number;
}): ServiceAccountTokens {
  const { account, tokenUrl } = options;
  const now = options.now ?? Date.now;
  const key = importPKCS8(account.privateKey, 'RS256');
  key.catch(() => {}); // a key that cannot sign is answered by exchange(), not unhandled
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<AccessTokenAnswer> | undefined;

  async function exchange(signal: AbortSignal | undefined): Promise<AccessTokenAnswer> {
    const issuedAt = Math.floor(now() / 1000);
    let assertion: string;
    try {
      assertion = await new SignJWT({ scope: options.scope })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) })
        .setIssuer(account.clientEmail)
        .setAudience(tokenUrl)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + DEFAULT_LIFETIME_S)
        .sign(await key);
    } catch {
      return { ok: false, retryable: false, reason: 'the service-account key could not sign' };
    }
    const timeout = AbortSignal.timeout(options.timeoutMs);
    let response: Response;
    let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown } | null;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }),
        redirect: 'manual',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      answer = (await response.json().catch(() => null)) as typeof answer;
    } catch (error) {
      return { ok: false, retryable: true, reason: `token exchange: ${failureOf(error)}` };
    }
    if (response.status === 200 && typeof answer?.access_token === 'string') {
      const lifetime = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : DEFAULT_LIFETIME_S;
      cached = { token: answer.access_token, expiresAt: now() + lifetime * 1000 };
      return { ok: true, token: answer.access_token };
    }
    const reason = `token exchange: HTTP ${response.status}${typeof answer?.error === 'string' ? ` ${answer.error}` : ''}`;
    return { ok: false, retryable: response.status === 429 || response.status >= 500, reason };
  }

  return {
    async accessToken(signal) {
      if (cached && cached.expiresAt - now() > RENEW_BEFORE_MS) return { ok: true, token: cached.token };
      pending ??= exchange(signal).finally(() => (pending = undefined));
      return pending;
    },
    invalidate() {
      cached = undefined;
    },
  };
}

/** A fetch failure in a few words: a timeout says so; other errors by name and message. */
export function failureOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timeout';
  if (error instanceof Error && error.name === 'AbortError') return 'stopped';
  return error instanceof Error ? error.message : String(error);
}
