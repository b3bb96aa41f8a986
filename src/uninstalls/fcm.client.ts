/**
 * Silent pushes over FCM HTTP v1: a data-only message to the registration token, authorised by
 * the service account's OAuth token (docs/uninstalls.md, "FCM"). Redirects are never followed.
 */
import { createServiceAccountTokens, failureOf } from '../shared/google-service-account';
import { FCM_DATA_KEY, type PushClient, type PushOutcome, type PushTarget } from './push.model';
import type { FcmAccount } from '../config/credential-files';

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

export interface FcmClientOptions {
  account: FcmAccount;
  /** FCM_URL: https://fcm.googleapis.com in production. */
  url: string;
  /** GOOGLE_OAUTH_TOKEN_URL. */
  tokenUrl: string;
  timeoutMs: number;
  now?: () => number;
}

interface FcmError {
  error?: { status?: unknown; details?: { '@type'?: unknown; errorCode?: unknown }[] };
}

export function createFcmClient(options: FcmClientOptions): PushClient {
  const tokens = createServiceAccountTokens({ account: options.account, tokenUrl: options.tokenUrl, scope: FCM_SCOPE, timeoutMs: options.timeoutMs, now: options.now });
  const endpoint = `${options.url.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(options.account.projectId)}/messages:send`;

  async function send(target: PushTarget, signal: AbortSignal): Promise<PushOutcome> {
    const auth = await tokens.accessToken(signal);
    if (!auth.ok) return { kind: auth.retryable ? 'unavailable' : 'refused', reason: auth.reason };
    const android = { priority: 'normal', ...(target.bundleId ? { restricted_package_name: target.bundleId } : {}) };
    let status: number;
    let text: string;
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${auth.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: { token: target.token, data: { [FCM_DATA_KEY]: '1' }, android } }),
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      return { kind: 'unavailable', reason: failureOf(error) };
    }
    const outcome = outcomeOf(status, text);
    if (status === 401) tokens.invalidate();
    return outcome;
  }

  return { provider: 'fcm', send, close: async () => {} };
}

/** Google's answers (docs/uninstalls.md, "What marks an install"). */
function outcomeOf(status: number, text: string): PushOutcome {
  if (status === 200) return { kind: 'delivered' };
  const { errorCode, errorStatus } = errorOf(text);
  const reason = `HTTP ${status}${errorCode ? ` ${errorCode}` : errorStatus ? ` ${errorStatus}` : ''}`;
  if (status === 404 && errorCode === 'UNREGISTERED') return { kind: 'unregistered' };
  if (errorCode === 'SENDER_ID_MISMATCH' || status === 400) return { kind: 'token_rejected', reason };
  if (status === 429 || status >= 500) return { kind: 'unavailable', reason };
  // 401/403 (credentials, permissions, THIRD_PARTY_AUTH_ERROR), 404 of a wrong project or URL, 3xx.
  return { kind: 'refused', reason };
}

function errorOf(text: string): { errorCode: string | null; errorStatus: string | null } {
  try {
    const error = (JSON.parse(text) as FcmError).error;
    const detail = error?.details?.find((entry) => typeof entry?.errorCode === 'string');
    return { errorCode: (detail?.errorCode as string | undefined) ?? null, errorStatus: typeof error?.status === 'string' ? error.status : null };
  } catch {
    return { errorCode: null, errorStatus: null };
  }
}
