import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createWriteBurst, WRITE_BURST_PER_SECOND } from '../../src/shared/write-burst';

describe('write burst', () => {
  /** A meter (at 100 rows a second unless told otherwise) on a clock the test moves; it starts at 10 s. */
  const meter = (options: { perSecond?: number } = { perSecond: 100 }) => {
    let ms = 10_000;
    const clock = { now: () => ms, set: (value: number) => (ms = value) };
    return { clock, burst: createWriteBurst({ ...options, now: clock.now }) };
  };

  test('busy once a second holds perSecond rows, not before', () => {
    const { clock, burst } = meter();
    expect(burst.busy()).toBe(false);
    burst.record(60);
    clock.set(10_500);
    burst.record(39);
    expect(burst.busy()).toBe(false);
    burst.record(1);
    expect(burst.busy()).toBe(true);
  });

  test('rows within one second add up across a second boundary', () => {
    const { clock, burst } = meter();
    clock.set(10_950);
    burst.record(50);
    clock.set(11_050);
    burst.record(50);
    expect(burst.busy()).toBe(true);
  });

  test('rows more than a second apart do not add up', () => {
    const { clock, burst } = meter();
    burst.record(99);
    clock.set(11_100);
    burst.record(99);
    expect(burst.busy()).toBe(false);
  });

  test('stays busy for a second after the burst, then clears when nothing more is written', () => {
    const { clock, burst } = meter();
    burst.record(150);
    clock.set(10_999);
    expect(burst.busy()).toBe(true);
    clock.set(11_000);
    expect(burst.busy()).toBe(false);
  });

  test('a pause of several seconds forgets the old burst', () => {
    const { clock, burst } = meter();
    burst.record(150);
    clock.set(15_000);
    burst.record(1);
    expect(burst.busy()).toBe(false);
    burst.record(99);
    expect(burst.busy()).toBe(true);
  });

  test('property: busy exactly when the rows of the last 1000 ms (by 100 ms buckets) reach the threshold', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 700 }), fc.integer({ min: 0, max: 60 })), { maxLength: 60 }), (steps) => {
        const { clock, burst } = meter();
        const log: { bucket: number; rows: number }[] = [];
        let ms = 10_000;
        for (const [advance, rows] of steps) {
          ms += advance;
          clock.set(ms);
          burst.record(rows);
          log.push({ bucket: Math.floor(ms / 100), rows });
          const current = Math.floor(ms / 100);
          const inWindow = log.filter((entry) => entry.bucket > current - 10).reduce((sum, entry) => sum + entry.rows, 0);
          expect(burst.busy()).toBe(inWindow >= 100);
        }
      }),
    );
  });

  test('the default threshold is the documented one', () => {
    const { burst } = meter({});
    burst.record(WRITE_BURST_PER_SECOND - 1);
    expect(burst.busy()).toBe(false);
    burst.record(1);
    expect(burst.busy()).toBe(true);
  });
});
