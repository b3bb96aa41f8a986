/**
 * The spec's retry rule: retry on transport errors, 408, 429 and 5xx, never on other 4xx;
 * wait min(cap, 2^(attempt-1)) seconds with 20% jitter either way (a 429's Retry-After when longer).
 */
export interface RetryPolicy {
  /** Longest backoff, in milliseconds. */
  capMs: number;
  /** Attempts in one go, the first included. */
  maxAttempts: number;
}

/** Installs: unlimited attempts, resumed on the next page load. */
export const INSTALL_RETRY: RetryPolicy = { capMs: 60_000, maxAttempts: Infinity };
/** Event batches (and opens): three attempts, then the batch waits in the queue for the next flush. */
export const EVENTS_RETRY: RetryPolicy = { capMs: 8_000, maxAttempts: 3 };

export const JITTER = 0.2;

/** The wait after failed attempt number `attempt` (1-based); `random` is in [0, 1). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const base = Math.min(policy.capMs, 1000 * 2 ** (attempt - 1));
  return base * (1 - JITTER + 2 * JITTER * random());
}

/** Status 0 stands for a transport error (offline, DNS, CORS, connection reset). */
export function isRetryable(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/**
 * A 429's wait in milliseconds: the Retry-After header (seconds or an HTTP date), else the
 * body's `retry_after` seconds; undefined when neither says.
 */
export function retryAfterMs(header: string | null, body: unknown, now: number): number | undefined {
  if (header !== null && header.trim() !== '') {
    const text = header.trim();
    if (/^\d+$/.test(text)) return Number(text) * 1000;
    const date = Date.parse(text);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const seconds = (body as { retry_after?: unknown } | null)?.retry_after;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
