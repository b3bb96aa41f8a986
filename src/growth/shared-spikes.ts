/**
 * The group test of an overlap group (docs/growth-imports.md, "Airings that share a spike"):
 * airings whose own test failed are tested together with the airings they share excess with,
 * so a spike split between simultaneous airings still attributes them.
 */

/** One cell of an overlap group: a segment's traffic of one scope, and each claimant's share of its excess. */
export interface SharedCell {
  count: number;
  expected: number;
  /** Index of the cell's segment within the group. */
  segment: number;
  /** The count above the expected one, at least 0. */
  excess: number;
  claimants: number[];
  /** Parallel to claimants; they add up to the excess. */
  shares: number[];
}

export interface JointTestInput {
  cells: readonly SharedCell[];
  segmentMinutes: readonly number[];
  /** The airing's region, or null for all traffic. */
  regionOf: (spot: number) => string | null;
  /** Airings whose own test failed and whose lift is above 0. */
  candidates: readonly number[];
  lift: (spot: number) => number;
  /** P(X >= kept) for the traffic a set of airings keeps, given what the baseline expects. */
  pValue: (kept: number, expected: number, scopeMinutes: number) => number;
  significance: number;
}

/** What a set of airings keeps: their cells' traffic less what airings outside the set took of it. */
class Coalition {
  readonly members = new Set<number>();
  private kept = 0;
  private expected = 0;
  private scopeMinutes = 0;
  private readonly covered = new Set<number>();
  private readonly scopes = new Map<number, { national: boolean; regions: Set<string> }>();

  constructor(private readonly input: JointTestInput, private readonly claims: Map<number, { cell: number; share: number }[]>) {}

  add(spot: number): void {
    this.members.add(spot);
    const region = this.input.regionOf(spot);
    const segments = new Set<number>();
    for (const { cell, share } of this.claims.get(spot) ?? []) {
      const c = this.input.cells[cell]!;
      segments.add(c.segment);
      if (this.covered.has(cell)) {
        this.kept += share;
        continue;
      }
      this.covered.add(cell);
      this.kept += c.count - (c.excess - share);
      this.expected += c.expected;
    }
    // The baseline floor counts each segment once per scope: all traffic, or each region apart.
    for (const segment of segments) {
      const scope = this.scopes.get(segment) ?? { national: false, regions: new Set<string>() };
      const before = scope.national ? 1 : scope.regions.size;
      if (region === null) scope.national = true;
      else scope.regions.add(region);
      this.scopes.set(segment, scope);
      this.scopeMinutes += ((scope.national ? 1 : scope.regions.size) - before) * this.input.segmentMinutes[segment]!;
    }
  }

  pValue(): number {
    return this.input.pValue(this.kept, this.expected, this.scopeMinutes);
  }
}

/**
 * The candidates a group test attributes, with its p-value. From the candidate with the largest
 * lift, the set grows by its strongest partners (candidates sharing a cell's excess with it,
 * equal lifts together) until its kept traffic is significant; a set that never is, is let go.
 */
export function jointlyAttributed(input: JointTestInput): Map<number, number> {
  const claims = new Map<number, { cell: number; share: number }[]>();
  input.cells.forEach((cell, index) => {
    cell.claimants.forEach((spot, position) => {
      const list = claims.get(spot) ?? [];
      list.push({ cell: index, share: cell.shares[position]! });
      claims.set(spot, list);
    });
  });
  const remaining = new Set(input.candidates);
  const attributed = new Map<number, number>();
  const byLift = [...input.candidates].sort((a, b) => input.lift(b) - input.lift(a) || a - b);
  for (const seed of byLift) {
    if (!remaining.has(seed)) continue;
    const coalition = new Coalition(input, claims);
    const partners = new Set<number>();
    const scanned = new Set<number>();
    const join = (spot: number) => {
      coalition.add(spot);
      partners.delete(spot);
      for (const { cell, share } of claims.get(spot) ?? []) {
        // A cell scanned for an earlier member has no partner to add that it did not add then.
        if (share <= 0 || scanned.has(cell)) continue;
        scanned.add(cell);
        const c = input.cells[cell]!;
        c.claimants.forEach((other, position) => {
          if (c.shares[position]! > 0 && remaining.has(other) && !coalition.members.has(other)) partners.add(other);
        });
      }
    };
    join(seed);
    let pValue = 1;
    while (partners.size > 0 && pValue >= input.significance) {
      const strongest = [...partners].reduce((max, spot) => Math.max(max, input.lift(spot)), 0);
      const tied = [...partners].filter((spot) => input.lift(spot) >= strongest - 1e-9 * Math.max(1, strongest));
      for (const spot of tied) join(spot);
      pValue = coalition.pValue();
    }
    for (const spot of coalition.members) {
      remaining.delete(spot);
      if (pValue < input.significance) attributed.set(spot, pValue);
    }
  }
  return attributed;
}
