/**
 * The interface's retry rule for a server-side caller (docs/sdk.md, "Retry rule"): a 429 is waited
 * out for its `Retry-After` and sent again; transport errors, 408 and 5xx are retried with
 * exponential backoff (the smaller of the cap and 2^(attempt-1) s, 20 % jitter either way), only
 * for calls that are safe to repeat; never another 4xx. At most `maxRetries` retries in all.
 */

export interface RetryOptions {
  /** Retries after the first attempt; the interface allows 3 for 5xx. 0 turns retrying off. */
  maxRetries?: number;
  /** Upper bound of one backoff wait, in ms (default 8000, the interface's cap for batches). */
  capMs?: number;
  /** A `Retry-After` longer than this (ms, default 60000) is not waited out: the 429 is answered. */
  maxRetryAfterMs?: number;
  /** How a wait is taken; replaced in tests. Rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter; replaced in tests. */
  random?: () => number;
}

export const DEFAULT_RETRY = { maxRetries: 3, capMs: 8000, maxRetryAfterMs: 60_000 } as const;
const JITTER = 0.2;

/** The wait before retry number `attempt` (1 for the first retry), in ms. */
export function backoffMs(attempt: number, capMs: number = DEFAULT_RETRY.capMs, random: () => number = Math.random): number {
  const base = Math.min(capMs, 1000 * 2 ** (attempt - 1));
  return Math.round(base * (1 + (random() * 2 - 1) * JITTER));
}

/** `Retry-After` in ms: delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Whether a call may be sent again after an answer that does not prove it was not carried out
 * (a 5xx, a 408, a lost connection). A 429 is refused before anything runs, so it is always retried.
 */
export type Replay = 'safe' | 'refused-only';

const retriedWhenSafe = (status: number) => status === 408 || status >= 500;

/** Sends `request` through `send` under the retry rule; each attempt sends a fresh copy of it. */
export async function sendWithRetries(send: (request: Request) => Promise<Response>, request: Request, replay: Replay, options: RetryOptions = {}): Promise<Response> {
  const maxRetries = options.maxRetries ?? DEFAULT_RETRY.maxRetries;
  const capMs = options.capMs ?? DEFAULT_RETRY.capMs;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs;
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  for (let retries = 0; ; retries++) {
    let response: Response;
    try {
      response = await send(request.clone());
    } catch (error) {
      if (request.signal.aborted || replay !== 'safe' || retries >= maxRetries) throw error;
      await sleep(backoffMs(retries + 1, capMs, random), request.signal);
      continue;
    }
    const retryable = response.status === 429 || (replay === 'safe' && retriedWhenSafe(response.status));
    if (!retryable || retries >= maxRetries) return response;
    const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(retries + 1, capMs, random);
    if (wait > maxRetryAfterMs) return response;
    await response.body?.cancel();
    await sleep(wait, request.signal);
  }
}
