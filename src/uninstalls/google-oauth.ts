/**
 * Access tokens for a Google service account: a JWT signed with its key (RS256) is traded at the
 * token endpoint (the JWT bearer grant, RFC 7523) and the answer kept until shortly before it
 * expires. Concurrent callers share one exchange.
 */
import { importPKCS8, SignJWT } from 'jose';
import type { PushOutcome } from './push.model';
import type { ServiceAccount } from './push-credentials';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token this close to its expiry is renewed rather than sent. */
const RENEW_BEFORE_MS = 60_000;

export type AccessTokenAnswer = { ok: true; token: string } | { ok: false; outcome: Extract<PushOutcome, { kind: 'refused' | 'unavailable' }> };

export interface ServiceAccountTokens {
  accessToken(signal: AbortSignal): Promise<AccessTokenAnswer>;
  /** The provider refused the token: the next call exchanges a new one. */
  invalidate(): void;
}

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
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<AccessTokenAnswer> | undefined;

  async function exchange(signal: AbortSignal): Promise<AccessTokenAnswer> {
    const issuedAt = Math.floor(now() / 1000);
    let assertion: string;
    try {
      assertion = await new SignJWT({ scope: options.scope })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) })
        .setIssuer(account.clientEmail)
        .setAudience(tokenUrl)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + 3600)
        .sign(await key);
    } catch {
      return { ok: false, outcome: { kind: 'refused', reason: 'the service-account key could not sign' } };
    }
    let response: Response;
    let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown } | null;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }),
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
      });
      answer = (await response.json().catch(() => null)) as typeof answer;
    } catch (error) {
      return { ok: false, outcome: { kind: 'unavailable', reason: `token exchange: ${failureOf(error)}` } };
    }
    if (response.status === 200 && typeof answer?.access_token === 'string') {
      const lifetime = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600;
      cached = { token: answer.access_token, expiresAt: now() + lifetime * 1000 };
      return { ok: true, token: answer.access_token };
    }
    const reason = `token exchange: HTTP ${response.status}${typeof answer?.error === 'string' ? ` ${answer.error}` : ''}`;
    if (response.status === 429 || response.status >= 500) return { ok: false, outcome: { kind: 'unavailable', reason } };
    return { ok: false, outcome: { kind: 'refused', reason } };
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
