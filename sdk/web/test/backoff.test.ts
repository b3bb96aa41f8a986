import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { backoffDelay, EVENTS_RETRY, INSTALL_RETRY, isRetryable, retryAfterMs, type RetryPolicy } from '../src/backoff';

const policies: [string, RetryPolicy][] = [
  ['install', INSTALL_RETRY],
  ['events', EVENTS_RETRY],
];

describe('backoff: min(cap, 2^(attempt-1)) s with 20% jitter either way', () => {
  for (const [name, policy] of policies) {
    test(`${name}: every delay lies within ±20% of the capped exponential (property)`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 2000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
          const base = Math.min(policy.capMs, 1000 * 2 ** (attempt - 1));
          const delay = backoffDelay(attempt, policy, () => random);
          return delay >= 0.8 * base - 1e-9 && delay < 1.2 * base + 1e-9;
        }),
      );
    });

    test(`${name}: never more than 1.2 times the cap, whatever the attempt (property)`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
          const delay = backoffDelay(attempt, policy, () => random);
          return Number.isFinite(delay) && delay < 1.2 * policy.capMs + 1e-9;
        }),
      );
    });
  }

  test('the jitter spans both ends: random 0 gives -20%, random near 1 gives +20%', () => {
    expect(backoffDelay(1, EVENTS_RETRY, () => 0)).toBe(800);
    expect(backoffDelay(1, EVENTS_RETRY, () => 0.5)).toBe(1000);
    expect(backoffDelay(3, EVENTS_RETRY, () => 0.5)).toBe(4000);
    expect(backoffDelay(3, EVENTS_RETRY, () => 0.999999)).toBeCloseTo(4800, 0);
  });

  test('the caps and attempts are the spec\'s: installs 60 s and unlimited, event batches 8 s and 3', () => {
    expect(INSTALL_RETRY).toEqual({ capMs: 60_000, maxAttempts: Infinity });
    expect(EVENTS_RETRY).toEqual({ capMs: 8_000, maxAttempts: 3 });
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => backoffDelay(attempt, INSTALL_RETRY, () => 0.5))).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, EVENTS_RETRY, () => 0.5))).toEqual([1000, 2000, 4000, 8000, 8000]);
  });
});

describe('what is retried', () => {
  test('transport errors, 408, 429 and 5xx; never another 4xx or a success', () => {
    for (const status of [0, 408, 429, 500, 502, 503, 504, 599]) expect(isRetryable(status)).toBe(true);
    for (const status of [200, 201, 400, 401, 403, 404, 405, 409, 410, 413, 422]) expect(isRetryable(status)).toBe(false);
  });

  test('Retry-After in seconds or as an HTTP date; the body\'s retry_after when the header is absent', () => {
    const now = Date.UTC(2026, 8, 2, 12, 0, 0);
    expect(retryAfterMs('7', null, now)).toBe(7000);
    expect(retryAfterMs(' 0 ', null, now)).toBe(0);
    expect(retryAfterMs(new Date(now + 30_000).toUTCString(), null, now)).toBe(30_000);
    expect(retryAfterMs(new Date(now - 30_000).toUTCString(), null, now)).toBe(0);
    expect(retryAfterMs(null, { error: 'rate_limited', retry_after: 12 }, now)).toBe(12_000);
    expect(retryAfterMs('3', { retry_after: 12 }, now)).toBe(3000);
    expect(retryAfterMs(null, { error: 'rate_limited' }, now)).toBeUndefined();
    expect(retryAfterMs('soon', { retry_after: -1 }, now)).toBeUndefined();
  });
});
