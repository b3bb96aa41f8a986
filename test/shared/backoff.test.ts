import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { backoffDelay } from '../../src/shared/backoff';

describe('backoffDelay', () => {
  test('doubles from the minimum with each retry and stays at the maximum', () => {
    const backoff = { min: 100, max: 5000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100, 5000].map((retry) => backoffDelay(backoff, retry))).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
  });

  test('property: a jittered wait is the nominal wait times a factor from [low, low + width)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0.01, max: 2, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (retry, r, low, width) => {
          const backoff = { min: 0.05, max: 1, jitter: { low, width } };
          const nominal = Math.min(1, 0.05 * 2 ** retry);
          const delay = backoffDelay(backoff, retry, () => r);
          expect(delay).toBeGreaterThanOrEqual(nominal * low * (1 - 1e-12));
          expect(delay).toBeLessThanOrEqual(nominal * (low + width) * (1 + 1e-12));
          expect(backoffDelay(backoff, retry, () => 0)).toBeCloseTo(nominal * low, 12);
        },
      ),
    );
  });

  test('without jitter no random number is drawn', () => {
    expect(backoffDelay({ min: 1, max: 8 }, 2, () => { throw new Error('drawn'); })).toBe(4);
  });
});
