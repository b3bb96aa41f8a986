/**
 * The TV spike math, pure: which traffic counts to ask for (planSpikes) and, given them, each
 * airing's baseline, window count, lift and verdict (attributeSpikes). The rules and a worked
 * example: docs/growth-imports.md, "TV attribution".
 */

import { jointlyAttributed, type SharedCell } from './shared-spikes';

const MINUTE_MS = 60_000;

/** Baseline length, in minutes of time no airing window covers, before the first airing of a group. */
export const BASELINE_MIN = 30;
/** How far back the baseline may look for those minutes. */
export const BASELINE_LOOKBACK_MIN = 180;
/** An airing is attributed when its window count is this improbable under the baseline. */
export const SIGNIFICANCE = 0.01;
/** The baseline rate the test assumes at least, so one visit after a silent half hour is no spike. */
export const BASELINE_FLOOR_PER_MIN = 0.1;

export interface Spot {
  /** Epoch milliseconds. */
  airedAt: number;
  windowMin: number;
  /** Lower-cased region name, or null for all traffic. */
  region: string | null;
}

export interface Interval {
  /** Epoch milliseconds, half-open [from, to). */
  from: number;
  to: number;
}

/** One count to make: traffic in [from, to), of one region or (null) of every region. */
export interface CountRequest extends Interval {
  region: string | null;
}

interface Segment extends Interval {
  /** Spots (indices into the input) whose window holds the segment. */
  active: number[];
  /** Request index of the segment's traffic per scope: '' for all, else the region. */
  requests: Map<string, number>;
}

interface Group {
  spots: number[];
  regions: string[];
  national: boolean;
  baselineMinutes: number;
  baseline: Map<string, number[]>;
  segments: Segment[];
}

export interface SpikePlan {
  spots: readonly Spot[];
  groups: Group[];
  requests: CountRequest[];
}

export interface SpotResult {
  baselinePerMin: number;
  /** Traffic inside the spot's own window. */
  windowCount: number;
  /** The spot's share of the traffic above the baseline, never negative. */
  lift: number;
  /** P(X >= count) under the baseline, the count being what overlapping spots left to this one. */
  pValue: number;
  attributed: boolean;
}

const windowOf = (spot: Spot): Interval => ({ from: spot.airedAt, to: spot.airedAt + spot.windowMin * MINUTE_MS });
const scopeKey = (region: string | null) => region ?? '';

/** Spots whose windows overlap, chained: each group's windows cover one unbroken interval. Indices in start order. */
export function overlapGroups(spots: readonly Spot[]): number[][] {
  const order = spots.map((_, index) => index).sort((a, b) => spots[a]!.airedAt - spots[b]!.airedAt || a - b);
  const groups: number[][] = [];
  let end = -Infinity;
  for (const index of order) {
    const window = windowOf(spots[index]!);
    if (window.from < end) groups[groups.length - 1]!.push(index);
    else groups.push([index]);
    end = Math.max(end, window.to);
  }
  return groups;
}

/**
 * The baseline before `start`: the latest BASELINE_MIN minutes inside the lookback that no
 * window of `cover` touches, newest first. Fewer when the lookback holds fewer.
 */
export function baselineIntervals(start: number, cover: readonly Interval[]): Interval[] {
  const floor = start - BASELINE_LOOKBACK_MIN * MINUTE_MS;
  const blocked = cover.filter((w) => w.to > floor && w.from < start).sort((a, b) => b.to - a.to);
  const found: Interval[] = [];
  let wanted = BASELINE_MIN * MINUTE_MS;
  let cursor = start;
  // Walk back from the start, skipping every covered stretch.
  while (cursor > floor && wanted > 0) {
    const covering = blocked.find((w) => w.from < cursor && w.to >= cursor);
    if (covering) {
      cursor = covering.from;
      continue;
    }
    const nextCovered = blocked.reduce((latest, w) => (w.to < cursor ? Math.max(latest, w.to) : latest), floor);
    const from = Math.max(nextCovered, cursor - wanted);
    found.push({ from, to: cursor });
    wanted -= cursor - from;
    cursor = from;
  }
  return found;
}

/**
 * The counts attributeSpikes needs for `spots`: per overlap group, its baseline intervals and
 * the segments its windows cut time into, each for all traffic (when a spot of the group has no
 * region) and for each region a spot names. `cover` holds every window that must stay out of
 * baselines (the spots' own are added).
 */
export function planSpikes(spots: readonly Spot[], cover: readonly Interval[] = []): SpikePlan {
  const requests: CountRequest[] = [];
  const ask = (interval: Interval, region: string | null) => requests.push({ ...interval, region }) - 1;
  const allCover = [...cover, ...spots.map(windowOf)];
  const groups = overlapGroups(spots).map((members): Group => {
    const regions = [...new Set(members.flatMap((i) => (spots[i]!.region === null ? [] : [spots[i]!.region!])))].sort();
    const national = members.some((i) => spots[i]!.region === null);
    const scopes: (string | null)[] = [...(national ? [null] : []), ...regions];
    const windows = members.map((i) => windowOf(spots[i]!));
    const baselineParts = baselineIntervals(windows[0]!.from, allCover);
    const baseline = new Map(scopes.map((scope) => [scopeKey(scope), baselineParts.map((part) => ask(part, scope))]));
    const cuts = [...new Set(windows.flatMap((w) => [w.from, w.to]))].sort((a, b) => a - b);
    const segments: Segment[] = [];
    for (let i = 0; i + 1 < cuts.length; i++) {
      const segment = { from: cuts[i]!, to: cuts[i + 1]! };
      const active = members.filter((_, m) => windows[m]!.from <= segment.from && windows[m]!.to >= segment.to);
      if (active.length === 0) continue;
      segments.push({ ...segment, active, requests: new Map(scopes.map((scope) => [scopeKey(scope), ask(segment, scope)])) });
    }
    const baselineMinutes = baselineParts.reduce((sum, part) => sum + (part.to - part.from), 0) / MINUTE_MS;
    return { spots: members, regions, national, baselineMinutes, baseline, segments };
  });
  return { spots, groups, requests };
}

/** One cell: a segment's traffic of one group (a region, or '' for the traffic of no region the group names). */
type Cell = Omit<SharedCell, 'excess' | 'shares'>;

/**
 * Each spot's result from the counts of plan.requests, in the same order. Inside an overlap
 * group every segment's traffic of every region is a cell; a cell's excess over the baseline is
 * shared by the spots that claim it in proportion to their own excess over their windows. A spot
 * whose own test fails may still be attributed by the group test (shared-spikes.ts).
 */
export function attributeSpikes(plan: SpikePlan, counts: readonly number[]): SpotResult[] {
  const results: SpotResult[] = new Array(plan.spots.length);
  for (const group of plan.groups) {
    const sum = (indices: readonly number[]) => indices.reduce((total, index) => total + (counts[index] ?? 0), 0);
    const rate = (count: number) => (group.baselineMinutes > 0 ? count / group.baselineMinutes : 0);
    const regionRate = new Map(group.regions.map((region) => [region, rate(sum(group.baseline.get(region)!))]));
    const allRate = group.national ? rate(sum(group.baseline.get('')!)) : 0;
    const otherRate = Math.max(0, allRate - [...regionRate.values()].reduce((a, b) => a + b, 0));
    const spotRate = (index: number) => {
      const region = plan.spots[index]!.region;
      return region === null ? allRate : regionRate.get(region)!;
    };

    const windowCount = new Map<number, number>(group.spots.map((index) => [index, 0]));
    const cells: Cell[] = [];
    const segmentMinutes = group.segments.map((segment) => (segment.to - segment.from) / MINUTE_MS);
    for (const [position, segment] of group.segments.entries()) {
      const minutes = segmentMinutes[position]!;
      const all = group.national ? counts[segment.requests.get('')!] ?? 0 : 0;
      let named = 0;
      for (const region of group.regions) {
        const count = counts[segment.requests.get(region)!] ?? 0;
        named += count;
        const claimants = segment.active.filter((index) => plan.spots[index]!.region === null || plan.spots[index]!.region === region);
        cells.push({ count, expected: regionRate.get(region)! * minutes, segment: position, claimants });
      }
      if (group.national) {
        const claimants = segment.active.filter((index) => plan.spots[index]!.region === null);
        cells.push({ count: Math.max(0, all - named), expected: otherRate * minutes, segment: position, claimants });
      }
      for (const index of segment.active) {
        const region = plan.spots[index]!.region;
        const own = region === null ? all : counts[segment.requests.get(region)!] ?? 0;
        windowCount.set(index, windowCount.get(index)! + own);
      }
    }

    const weight = new Map(
      group.spots.map((index) => {
        const spot = plan.spots[index]!;
        return [index, Math.max(0, windowCount.get(index)! - spotRate(index) * spot.windowMin) / spot.windowMin];
      }),
    );
    const lift = new Map<number, number>(group.spots.map((index) => [index, 0]));
    const takenByOthers = new Map<number, number>(group.spots.map((index) => [index, 0]));
    const shared: SharedCell[] = [];
    for (const cell of cells) {
      if (cell.claimants.length === 0) continue;
      const excess = Math.max(0, cell.count - cell.expected);
      const total = cell.claimants.reduce((a, index) => a + weight.get(index)!, 0);
      const shares = cell.claimants.map((index) => (total > 0 ? (excess * weight.get(index)!) / total : excess / cell.claimants.length));
      cell.claimants.forEach((index, position) => {
        lift.set(index, lift.get(index)! + shares[position]!);
        takenByOthers.set(index, takenByOthers.get(index)! + excess - shares[position]!);
      });
      shared.push({ ...cell, excess, shares });
    }

    for (const index of group.spots) {
      const spot = plan.spots[index]!;
      const baselinePerMin = spotRate(index);
      const pValue = keptPValue(windowCount.get(index)! - takenByOthers.get(index)!, baselinePerMin * spot.windowMin, spot.windowMin);
      results[index] = { baselinePerMin, windowCount: windowCount.get(index)!, lift: lift.get(index)!, pValue, attributed: pValue < SIGNIFICANCE };
    }
    const joint = jointlyAttributed({
      cells: shared,
      segmentMinutes,
      regionOf: (index) => plan.spots[index]!.region,
      candidates: group.spots.filter((index) => !results[index]!.attributed && lift.get(index)! > 0),
      lift: (index) => lift.get(index)!,
      pValue: keptPValue,
      significance: SIGNIFICANCE,
    });
    for (const [index, pValue] of joint) results[index] = { ...results[index]!, pValue, attributed: true };
  }
  return results;
}

/** P(X >= kept, rounded down) under the expected count, the baseline floor applying to each minute of each scope. */
function keptPValue(kept: number, expected: number, scopeMinutes: number): number {
  return poissonTail(Math.floor(kept + 1e-9), Math.max(expected, BASELINE_FLOOR_PER_MIN * scopeMinutes));
}

/** P(X >= k) for X ~ Poisson(mean): the regularized lower incomplete gamma P(k, mean). */
export function poissonTail(k: number, mean: number): number {
  if (k <= 0) return 1;
  if (mean <= 0) return 0;
  return mean < k + 1 ? gammaSeries(k, mean) : 1 - gammaContinuedFraction(k, mean);
}

const EPSILON = 1e-15;
const MAX_TERMS = 10_000;

/** P(a, x) by its series; converges fast for x < a + 1. */
function gammaSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < MAX_TERMS; n++) {
    term *= x / (a + n);
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * EPSILON) break;
  }
  return Math.min(1, sum * Math.exp(-x + a * Math.log(x) - logGamma(a)));
}

/** Q(a, x) = 1 - P(a, x) by Lentz's continued fraction; converges fast for x >= a + 1. */
function gammaContinuedFraction(a: number, x: number): number {
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let n = 1; n < MAX_TERMS; n++) {
    const an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return Math.min(1, Math.exp(-x + a * Math.log(x) - logGamma(a)) * h);
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7): about 15 significant digits. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}
