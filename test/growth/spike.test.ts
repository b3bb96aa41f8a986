import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  attributeSpikes,
  baselineIntervals,
  BASELINE_FLOOR_PER_MIN,
  logGamma,
  overlapGroups,
  planSpikes,
  poissonTail,
  SIGNIFICANCE,
  type CountRequest,
  type Spot,
} from '../../src/growth/spike';

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 10, 20, 0, 0);

interface Visit {
  at: number;
  region: string | null;
}

/** What the DuckDB count does, over an array: the reference the math is checked against. */
const counter = (visits: readonly Visit[]) => (requests: readonly CountRequest[]) =>
  requests.map((r) => visits.filter((v) => v.at >= r.from && v.at < r.to && (r.region === null || v.region === r.region)).length);

function run(spots: Spot[], visits: Visit[]) {
  const plan = planSpikes(spots);
  return attributeSpikes(plan, counter(visits)(plan.requests));
}

/** `perMin` visits a minute, evenly spaced, in [from, to). */
function steady(from: number, to: number, perMin: number, region: string | null = null): Visit[] {
  const visits: Visit[] = [];
  const step = MIN / perMin;
  for (let at = from; at < to; at += step) visits.push({ at, region });
  return visits;
}

function spike(from: number, count: number, overMin: number, region: string | null = null): Visit[] {
  return Array.from({ length: count }, (_, i) => ({ at: from + Math.floor((i * overMin * MIN) / count), region }));
}

/** Direct sum of the Poisson mass, for small means. */
function directTail(k: number, mean: number): number {
  let below = 0;
  let term = Math.exp(-mean);
  for (let i = 0; i < k; i++) {
    below += term;
    term *= mean / (i + 1);
  }
  return Math.max(0, 1 - below);
}

describe('poissonTail', () => {
  test('known values', () => {
    expect(poissonTail(0, 5)).toBe(1);
    expect(poissonTail(1, 2)).toBeCloseTo(1 - Math.exp(-2), 12);
    expect(poissonTail(40, 20)).toBeCloseTo(5.3202025e-5, 11);
    expect(poissonTail(5, 1)).toBeCloseTo(0.00365985, 7);
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 10);
  });

  test('property: matches the direct sum for small means', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.double({ min: 0.01, max: 30, noNaN: true }), (k, mean) => {
        expect(Math.abs(poissonTail(k, mean) - directTail(k, mean))).toBeLessThan(1e-9);
      }),
    );
  });

  test('property: falls as k grows, rises as the mean grows, stays in [0, 1]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), fc.double({ min: 0.01, max: 100_000, noNaN: true }), (k, mean) => {
        const p = poissonTail(k, mean);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        expect(poissonTail(k + 1, mean)).toBeLessThanOrEqual(p + 1e-12);
        expect(poissonTail(k, mean * 1.1)).toBeGreaterThanOrEqual(p - 1e-12);
      }),
    );
  });
});

describe('one airing', () => {
  const spot: Spot = { airedAt: T0, windowMin: 10, region: null };

  test('a clear spike (2 a minute before, 40 in the window) is attributed with a lift of 20', () => {
    const [result] = run([spot], [...steady(T0 - 30 * MIN, T0, 2), ...spike(T0, 40, 10)]);
    expect(result).toMatchObject({ baselinePerMin: 2, windowCount: 40, lift: 20, attributed: true });
    expect(result!.pValue).toBeCloseTo(poissonTail(40, 20), 12);
  });

  test('steady traffic is not attributed', () => {
    const [result] = run([spot], steady(T0 - 40 * MIN, T0 + 20 * MIN, 2));
    expect(result).toMatchObject({ baselinePerMin: 2, windowCount: 20, lift: 0, attributed: false });
  });

  test('a near-empty baseline takes the floor: a handful of visits is not enough', () => {
    const floorMean = BASELINE_FLOOR_PER_MIN * 10;
    const needed = Array.from({ length: 20 }, (_, k) => k).find((k) => poissonTail(k, floorMean) < SIGNIFICANCE)!;
    expect(run([spot], spike(T0, needed - 1, 10))[0]!.attributed).toBe(false);
    expect(run([spot], spike(T0, needed, 10))[0]).toMatchObject({ baselinePerMin: 0, windowCount: needed, lift: needed, attributed: true });
  });

  test('the window is half-open and the baseline ends at aired_at', () => {
    const visits = [{ at: T0 - 1, region: null }, { at: T0, region: null }, { at: T0 + 10 * MIN - 1, region: null }, { at: T0 + 10 * MIN, region: null }];
    expect(run([spot], visits)[0]).toMatchObject({ baselinePerMin: 1 / 30, windowCount: 2 });
  });

  test('a region counts only its own traffic', () => {
    const visits = [...steady(T0 - 30 * MIN, T0 + 10 * MIN, 1, 'bavaria'), ...spike(T0, 30, 10, 'hesse')];
    expect(run([{ ...spot, region: 'bavaria' }], visits)[0]).toMatchObject({ windowCount: 10, lift: 0, attributed: false });
    expect(run([{ ...spot, region: 'hesse' }], visits)[0]).toMatchObject({ windowCount: 30, lift: 30, attributed: true });
    expect(run([spot], visits)[0]).toMatchObject({ windowCount: 40, attributed: true });
  });
});

describe('overlapping airings', () => {
  test('two overlapping spots split one spike; the baseline is the one before the first', () => {
    const a: Spot = { airedAt: T0, windowMin: 10, region: null };
    const b: Spot = { airedAt: T0 + 5 * MIN, windowMin: 10, region: null };
    const visits = [...steady(T0 - 30 * MIN, T0 + 15 * MIN, 2), ...spike(T0 + 5 * MIN, 60, 5)];
    const [ra, rb] = run([a, b], visits);
    expect(ra).toMatchObject({ baselinePerMin: 2, windowCount: 80, attributed: true });
    expect(rb).toMatchObject({ baselinePerMin: 2, windowCount: 80, attributed: true });
    expect(ra!.lift).toBeCloseTo(30, 9);
    expect(rb!.lift).toBeCloseTo(30, 9);
  });

  test('a spot whose window only catches the tail of another spot\'s spike gets its share of that tail only', () => {
    const a: Spot = { airedAt: T0, windowMin: 10, region: null };
    const b: Spot = { airedAt: T0 + 8 * MIN, windowMin: 10, region: null };
    const visits = [...steady(T0 - 30 * MIN, T0 + 18 * MIN, 2), ...spike(T0, 80, 10)];
    const [ra, rb] = run([a, b], visits);
    expect(ra!.attributed).toBe(true);
    expect(rb!.attributed).toBe(false);
    expect(ra!.lift + rb!.lift).toBeCloseTo(80, 9);
    expect(ra!.lift).toBeGreaterThan(rb!.lift * 5);
  });

  test('two spots at the same minute share one clear spike: the group is tested, both are attributed', () => {
    const a: Spot = { airedAt: T0, windowMin: 10, region: null };
    const visits = [...steady(T0 - 30 * MIN, T0, 2), ...spike(T0, 40, 10)];
    const results = run([a, { ...a }], visits);
    for (const r of results) {
      expect(r).toMatchObject({ baselinePerMin: 2, windowCount: 40, attributed: true });
      expect(r.lift).toBeCloseTo(10, 9);
      // The group's window: 40 visits where 20 are expected.
      expect(r.pValue).toBeCloseTo(poissonTail(40, 20), 12);
    }
    // Each alone keeps 30 of the 40 (the other took 10): not enough by itself.
    expect(poissonTail(30, 20)).toBeGreaterThan(SIGNIFICANCE);
  });

  test('four spots at the same minute with the same spike are all attributed, each with a quarter of the lift', () => {
    const visits = [...steady(T0 - 30 * MIN, T0, 2), ...spike(T0, 40, 10)];
    const results = run(Array.from({ length: 4 }, () => ({ airedAt: T0, windowMin: 10, region: null })), visits);
    for (const r of results) {
      expect(r.attributed).toBe(true);
      expect(r.lift).toBeCloseTo(5, 9);
    }
  });

  test('a spot one minute after another shares its spike and is attributed with it', () => {
    const a: Spot = { airedAt: T0, windowMin: 10, region: null };
    const b: Spot = { airedAt: T0 + MIN, windowMin: 10, region: null };
    const visits = [...steady(T0 - 30 * MIN, T0 + 11 * MIN, 2), ...spike(T0 + MIN, 20, 9)];
    const [ra, rb] = run([a, b], visits);
    expect(ra!.attributed && rb!.attributed).toBe(true);
    expect(ra!.lift + rb!.lift).toBeCloseTo(20, 9);
  });

  test('two weak spikes in two regions are not added up into one', () => {
    const bavaria: Spot = { airedAt: T0, windowMin: 10, region: 'bavaria' };
    const hesse: Spot = { airedAt: T0, windowMin: 10, region: 'hesse' };
    // Each region: 1 a minute before, 17 in the window (P(X >= 17 | 10) is about 0.027).
    const visits = ['bavaria', 'hesse'].flatMap((region) => [...steady(T0 - 30 * MIN, T0, 1, region), ...spike(T0, 17, 10, region)]);
    const results = run([bavaria, hesse], visits);
    expect(results.map((r) => r.attributed)).toEqual([false, false]);
    expect(results[0]!.pValue).toBeCloseTo(poissonTail(17, 10), 12);
  });

  test('a later spot\'s baseline skips an earlier spot\'s window', () => {
    const a: Spot = { airedAt: T0, windowMin: 10, region: null };
    const b: Spot = { airedAt: T0 + 15 * MIN, windowMin: 10, region: null };
    const visits = [...steady(T0 - 60 * MIN, T0 + 25 * MIN, 1), ...spike(T0, 100, 10)];
    const [, rb] = run([a, b], visits);
    expect(rb).toMatchObject({ baselinePerMin: 1, windowCount: 10, lift: 0, attributed: false });
    expect(baselineIntervals(b.airedAt, [{ from: T0, to: T0 + 10 * MIN }])).toEqual([
      { from: T0 + 10 * MIN, to: T0 + 15 * MIN },
      { from: T0 - 25 * MIN, to: T0 },
    ]);
  });

  test('overlap groups chain windows that overlap, and only those', () => {
    const spots: Spot[] = [0, 5, 14, 30, 39].map((m) => ({ airedAt: T0 + m * MIN, windowMin: 10, region: null }));
    expect(overlapGroups(spots)).toEqual([[0, 1, 2], [3, 4]]);
  });
});

const spotArb = fc.record({
  airedAt: fc.integer({ min: 0, max: 120 }).map((m) => T0 + m * MIN),
  windowMin: fc.integer({ min: 2, max: 60 }),
  region: fc.constantFrom(null, 'bavaria', 'hesse'),
});
const visitArb = fc.record({ at: fc.integer({ min: T0 - 200 * MIN, max: T0 + 190 * MIN }), region: fc.constantFrom(null, 'bavaria', 'hesse', 'saxony') });

describe('properties', () => {
  test('the lifts never add up to more than the traffic inside the windows, and each is at least 0', () => {
    fc.assert(
      fc.property(fc.array(spotArb, { minLength: 1, maxLength: 6 }), fc.array(visitArb, { maxLength: 400 }), (spots, visits) => {
        const results = run(spots, visits);
        const inAnyWindow = visits.filter((v) => spots.some((s) => v.at >= s.airedAt && v.at < s.airedAt + s.windowMin * MIN)).length;
        const total = results.reduce((sum, r) => sum + r.lift, 0);
        expect(total).toBeLessThanOrEqual(inAnyWindow + 1e-6);
        for (const r of results) {
          expect(r.lift).toBeGreaterThanOrEqual(0);
          expect(r.lift).toBeLessThanOrEqual(r.windowCount + 1e-6);
          expect(r.attributed).toBe(r.pValue < SIGNIFICANCE);
          if (r.attributed) expect(r.lift).toBeGreaterThan(0);
          expect(Number.isFinite(r.baselinePerMin) && r.windowCount >= 0).toBe(true);
        }
      }),
    );
  });

  test('attribution is monotone in the window count: more visits in the window never un-attribute a lone spot', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 2, max: 60 }), (baseline, inWindow, more, windowMin) => {
        const spot: Spot = { airedAt: T0, windowMin, region: null };
        const before = spike(T0 - 30 * MIN, baseline, 30);
        const at = (count: number) => run([spot], [...before, ...spike(T0, count, windowMin)])[0]!;
        const fewer = at(inWindow);
        const greater = at(inWindow + more);
        expect(greater.pValue).toBeLessThanOrEqual(fewer.pValue + 1e-12);
        expect(greater.lift).toBeGreaterThanOrEqual(fewer.lift);
        if (fewer.attributed) expect(greater.attributed).toBe(true);
      }),
    );
  });

  test('a lone spot\'s lift is its window count minus the expected count, at least 0', () => {
    fc.assert(
      fc.property(fc.array(visitArb, { maxLength: 300 }), fc.integer({ min: 2, max: 60 }), (visits, windowMin) => {
        const [r] = run([{ airedAt: T0, windowMin, region: null }], visits);
        expect(r!.lift).toBeCloseTo(Math.max(0, r!.windowCount - r!.baselinePerMin * windowMin), 9);
      }),
    );
  });

  test('moving everything by the same time changes nothing', () => {
    fc.assert(
      fc.property(fc.array(spotArb, { minLength: 1, maxLength: 4 }), fc.array(visitArb, { maxLength: 200 }), fc.integer({ min: -1e6, max: 1e6 }), (spots, visits, shiftMin) => {
        const shift = shiftMin * MIN;
        const moved = run(
          spots.map((s) => ({ ...s, airedAt: s.airedAt + shift })),
          visits.map((v) => ({ ...v, at: v.at + shift })),
        );
        const base = run(spots, visits);
        for (const [i, r] of moved.entries()) {
          expect(r.windowCount).toBe(base[i]!.windowCount);
          expect(r.lift).toBeCloseTo(base[i]!.lift, 9);
          expect(r.attributed).toBe(base[i]!.attributed);
        }
      }),
    );
  });

  test('identical spots share equally, and are attributed alike', () => {
    fc.assert(
      fc.property(fc.array(visitArb, { maxLength: 300 }), fc.integer({ min: 2, max: 5 }), (visits, copies) => {
        const results = run(Array.from({ length: copies }, () => ({ airedAt: T0, windowMin: 10, region: null })), visits);
        for (const r of results) {
          expect(r.lift).toBeCloseTo(results[0]!.lift, 9);
          expect(r.attributed).toBe(results[0]!.attributed);
        }
      }),
    );
  });
});
