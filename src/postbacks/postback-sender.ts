import { hmacSha256Hex } from '../shared/crypto/secrets';
import { backoffDelay } from '../shared/backoff';
import { fetchPinned, UnsafeTargetError, type Lookup } from '../shared/net/safe-target';
import type { HostPacer } from './host-pacer';
import type { AttemptOutcome, ClaimedDelivery } from './postbacks.repo';
import { renderTemplate } from './postback-template';

export interface SendOptions {
  allowPrivate: boolean;
  lookup?: Lookup;
  /** Bounds every attempt: DNS, connect, request and response headers. */
  timeoutMs: number;
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  userAgent: string;
  random?: () => number;
}

/** 20 percent either way, so failed deliveries do not return in lockstep. */
const RETRY_JITTER = { low: 0.8, width: 0.4 };

/** The wait before the next attempt: the smaller of the cap and base * 2^(attempt-1), jittered. */
export function retryDelayMs(attempt: number, options: Pick<SendOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  const backoff = { min: options.baseDelayMs, max: options.maxDelayMs, jitter: RETRY_JITTER };
  return backoffDelay(backoff, Math.max(0, attempt - 1), options.random);
}

/** What the delivery log says when no HTTP answer came back: the reason goes to the server log. */
export const DESTINATION_REFUSED = 'destination refused';
export const DELIVERY_FAILED = 'delivery failed';

/** 408, 429 and 5xx may succeed later; any other status will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Seconds of a Retry-After header; dates and nonsense are ignored. */
function retryAfterMs(header: string | null): number {
  if (!header || !/^\d{1,7}$/.test(header.trim())) return 0;
  return Number(header.trim()) * 1000;
}

/**
 * One attempt at one delivery: render the URL, wait for the host's pace, refuse non-public
 * hosts, send to the checked address without following redirects, and say what to do next.
 * `stop` aborts the attempt when the worker shuts down.
 */
export async function attemptDelivery(delivery: ClaimedDelivery, options: SendOptions, stop: AbortSignal, pacer?: HostPacer): Promise<AttemptOutcome> {
  if (delivery.destinationDeleted) return { kind: 'cancelled', error: 'destination deleted' };
  if (!delivery.conversion) return { kind: 'cancelled', error: 'conversion not found' };
  const retryOrFail = (statusCode: number | null, error: string, minDelayMs = 0): AttemptOutcome => {
    if (delivery.attempts >= options.maxAttempts) {
      return { kind: 'failed', statusCode, error: `gave up after ${delivery.attempts} attempts: ${error}` };
    }
    const delayMs = Math.max(retryDelayMs(delivery.attempts, options), Math.min(minDelayMs, options.maxDelayMs));
    return { kind: 'retry', statusCode, error, delayMs };
  };

  let url: URL;
  try {
    url = new URL(renderTemplate(delivery.url, delivery.conversion));
  } catch {
    return { kind: 'failed', statusCode: null, error: 'the rendered URL is not valid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'failed', statusCode: null, error: 'the rendered URL is not http(s)' };
  const waitMs = pacer?.admit(url.hostname, delivery.id) ?? 0;
  if (waitMs > 0) return { kind: 'released', delayMs: waitMs };

  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([timeout, stop]);
  try {
    const headers: Record<string, string> = {
      'user-agent': options.userAgent,
      'x-svc-delivery': delivery.id,
      'x-svc-event': delivery.conversion.event,
    };
    let body: string | undefined;
    if (delivery.method === 'POST') {
      body = JSON.stringify(delivery.conversion);
      headers['content-type'] = 'application/json';
      headers['x-svc-signature'] = hmacSha256Hex(delivery.secret, body);
    }
    // Checked on every attempt, not only at creation: DNS answers can change.
    const response = await fetchPinned(url, { method: delivery.method, headers, body }, { allowPrivate: options.allowPrivate, lookup: options.lookup, signal });
    await response.body?.cancel().catch(() => {});
    const status = response.status;
    if (status >= 200 && status < 300) return { kind: 'delivered', statusCode: status };
    if (status >= 300 && status < 400) return { kind: 'failed', statusCode: status, error: `HTTP ${status} (redirects are not followed)` };
    if (isRetryableStatus(status)) return retryOrFail(status, `HTTP ${status}`, status === 429 ? retryAfterMs(response.headers.get('retry-after')) : 0);
    return { kind: 'failed', statusCode: status, error: `HTTP ${status}` };
  } catch (error) {
    if (stop.aborted) return { kind: 'released', delayMs: 0 };
    // How the name resolved and what the network answered is for the operator's log only.
    const detail = error instanceof UnsafeTargetError ? `refused: ${error.message}` : timeout.aborted ? `timeout after ${options.timeoutMs} ms` : `network error: ${describe(error)}`;
    console.warn(`postback delivery ${delivery.id} to ${url.host}: ${detail}`);
    if (error instanceof UnsafeTargetError) return { kind: 'failed', statusCode: null, error: DESTINATION_REFUSED };
    return retryOrFail(null, DELIVERY_FAILED);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return (typeof code === 'string' ? `${code} ` : '') + error.message.slice(0, 200);
  }
  return String(error).slice(0, 200);
}
