/**
 * An exponential backoff: the wait before a retry doubles with each failure in a row, from `min`
 * to at most `max` (in whatever unit the caller counts), optionally spread by a random factor so
 * that callers failing together do not come back together.
 */
export interface Backoff {
  min: number;
  max: number;
  /** The wait is multiplied by a factor drawn evenly from [low, low + width). */
  jitter?: { low: number; width: number };
}

/** The wait before retry number `retry`, counted from 0: the first retry waits `min`, each next one twice the last. */
export function backoffDelay(backoff: Backoff, retry: number, random: () => number = Math.random): number {
  const nominal = Math.min(backoff.max, backoff.min * 2 ** retry);
  const jitter = backoff.jitter;
  return jitter ? nominal * (jitter.low + jitter.width * random()) : nominal;
}
