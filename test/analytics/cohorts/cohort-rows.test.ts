import { describe, expect, test } from 'bun:test';
import type { CohortFact } from '../../../src/analytics/cohorts/cohort-sql';
import { shapeCohorts, type ShapeOptions } from '../../../src/analytics/cohorts/cohort-rows';

const DAY = 20_600;
const options: ShapeOptions = {
  groupBy: ['campaign'], days: [0, 1], today: DAY + 5, rowSpend: true, totalSpend: true,
  labels: { campaigns: new Map([['cmp', 'Spring']]), apps: new Map() },
};
const fact = (kind: CohortFact['kind'], fields: Partial<CohortFact>): CohortFact =>
  ({ kind, k1: 'cmp', k2: null, install_day: DAY, n: null, currency: null, v1: null, v2: null, ...fields });

/** Two installs, 10 EUR of spend converted, 5 EUR of revenue converted through day 0 and 1. */
const base = [
  fact('cohort', { v1: 2, v2: 0 }),
  fact('spend', { currency: 'EUR', v1: 10, v2: null }),
  fact('revenue', { n: 0, currency: 'EUR', v1: 5, v2: null }),
  fact('revenue', { n: 1, currency: 'EUR', v1: 5, v2: null }),
];

describe('cohort ratios over unconverted amounts', () => {
  test('with every amount converted, CPI, ARPU and ROAS are the ratios of the sums', () => {
    const { rows, total } = shapeCohorts(base, options);
    expect(rows[0]).toMatchObject({ campaign: 'Spring', installs: 2, spend: 10, cpi: 5 });
    expect(rows[0]!.days[1]).toMatchObject({ revenue: 5, arpu: 2.5, roas: 0.5 });
    expect(total).toMatchObject({ cpi: 5 });
  });

  test('spend partly unconverted: no CPI and no ROAS, the converted spend still shown', () => {
    const facts = [...base, fact('spend', { currency: 'JPY', v1: null, v2: 700 })];
    const { rows, total, unconverted_spend } = shapeCohorts(facts, options);
    expect(unconverted_spend).toEqual({ JPY: 700 });
    expect(rows[0]).toMatchObject({ spend: 10, cpi: null });
    expect(rows[0]!.days.map((entry) => entry.roas)).toEqual([null, null]);
    expect(rows[0]!.days[1]).toMatchObject({ revenue: 5, arpu: 2.5 });
    expect(total.cpi).toBeNull();
  });

  test('revenue partly unconverted from day 1 on: that day has no ARPU and no ROAS, day 0 keeps them', () => {
    const facts = [...base, fact('revenue', { n: 1, currency: 'GBP', v1: null, v2: 3 })];
    const { rows, unconverted } = shapeCohorts(facts, options);
    expect(unconverted).toEqual({ GBP: 3 });
    expect(rows[0]!.days[0]).toMatchObject({ revenue: 5, arpu: 2.5, roas: 0.5 });
    expect(rows[0]!.days[1]).toMatchObject({ revenue: 5, arpu: null, roas: null });
  });
});
