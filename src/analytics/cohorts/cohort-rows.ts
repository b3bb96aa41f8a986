/**
 * The cohort report's rows and total from the statement's sums (cohort-sql.ts): per group and
 * install day first, then each cohort day over the install days that have reached it, the
 * ratios computed again from the sums, never averaged (docs/reports.md, "Cohorts").
 */
import { dayOfNumber } from '../reporting/zone-days';
import { unconvertedByCurrency } from '../reporting/fx-sql';
import type { CohortFact } from './cohort-sql';
import type { CohortDay, CohortGroup, CohortRow, CohortTotal } from './cohorts.model';

/** One group's (or the total's) sums for one install day. */
interface Unit {
  installs: number;
  reattributions: number;
  spend: number;
  /** Spend with no rate, in any currency: while there is some, no ratio over spend is shown. */
  spendApart: number;
  retained: Map<number, number>;
  revenue: Map<number, number>;
  /** Revenue through day n with no rate: while there is some, no ratio over that revenue is shown. */
  revenueApart: Map<number, number>;
  uninstalled: Map<number, number>;
}

interface Group {
  keys: { k1: string | null; k2: string | null; day: number | null };
  units: Map<number, Unit>;
}

export interface ShapeOptions {
  groupBy: readonly CohortGroup[];
  days: readonly number[];
  /** Today in the reporting zone, days since 1970-01-01: cohort day n of install day d is reached when d + n <= today. */
  today: number;
  /** Whether rows carry spend (costs split by their grouping and filters), and whether the total does. */
  rowSpend: boolean;
  totalSpend: boolean;
  labels: { campaigns: Map<string, string>; apps: Map<string, string> };
}

export interface Shaped {
  rows: CohortRow[];
  total: CohortTotal;
  unconverted: Record<string, number>;
  unconverted_spend: Record<string, number>;
}

const newUnit = (): Unit => ({ installs: 0, reattributions: 0, spend: 0, spendApart: 0, retained: new Map(), revenue: new Map(), revenueApart: new Map(), uninstalled: new Map() });
const add = (map: Map<number, number>, n: number, value: number) => map.set(n, (map.get(n) ?? 0) + value);

function unitOf(units: Map<number, Unit>, day: number): Unit {
  let unit = units.get(day);
  if (!unit) units.set(day, (unit = newUnit()));
  return unit;
}

function addFact(unit: Unit, fact: CohortFact): void {
  const v1 = Number(fact.v1 ?? 0);
  switch (fact.kind) {
    case 'cohort':
      unit.installs += v1;
      unit.reattributions += Number(fact.v2 ?? 0);
      break;
    case 'spend':
      unit.spend += v1;
      unit.spendApart += Math.abs(Number(fact.v2 ?? 0));
      break;
    case 'retained':
      add(unit.retained, fact.n!, v1);
      break;
    case 'revenue':
      add(unit.revenue, fact.n!, v1);
      add(unit.revenueApart, fact.n!, Math.abs(Number(fact.v2 ?? 0)));
      break;
    case 'uninstalled':
      add(unit.uninstalled, fact.n!, v1);
      break;
  }
}

/** Rows in the grouping asked, the total, and what could not be converted. */
export function shapeCohorts(facts: readonly CohortFact[], options: ShapeOptions): Shaped {
  const byDay = options.groupBy.includes('day');
  const groups = new Map<string, Group>();
  const total = new Map<number, Unit>();
  const lastDay = Math.max(...options.days);
  const unconverted: { currency: unknown; amount: unknown }[] = [];
  const unconvertedSpend: { currency: unknown; amount: unknown }[] = [];
  for (const fact of facts) {
    const installDay = Number(fact.install_day);
    if (fact.kind === 'revenue' && Number(fact.n) === lastDay) unconverted.push({ currency: fact.currency, amount: fact.v2 });
    if (fact.kind === 'spend') unconvertedSpend.push({ currency: fact.currency, amount: fact.v2 });
    addFact(unitOf(total, installDay), fact);
    if (fact.kind === 'spend' && !options.rowSpend) continue;
    const keys = { k1: fact.k1 ?? null, k2: fact.k2 ?? null, day: byDay ? installDay : null };
    const id = JSON.stringify([keys.k1, keys.k2, keys.day]);
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { keys, units: new Map() }));
    addFact(unitOf(group.units, installDay), fact);
  }
  const rows = [...groups.values()].map((group) => ({ ...labelled(group.keys, options), ...measures(group.units, options, options.rowSpend) }));
  rows.sort((a, b) => compareRows(a, b, options.groupBy));
  return {
    rows,
    total: measures(total, options, options.totalSpend),
    unconverted: unconvertedByCurrency(unconverted),
    unconverted_spend: unconvertedByCurrency(unconvertedSpend),
  };
}

/**
 * The measures of a set of install days: each cohort day over the install days that reached it.
 * A ratio over an amount partly unconverted is null, as in every report (docs/reports.md,
 * "Exchange rates"): the known part alone would give a wrong ratio, not a smaller one.
 */
function measures(units: Map<number, Unit>, options: ShapeOptions, spendKnown: boolean): CohortTotal {
  const all = [...units.entries()];
  const installs = sum(all, (unit) => unit.installs);
  const spend = spendKnown ? money(sum(all, (unit) => unit.spend)) : null;
  const spendWhole = sum(all, (unit) => unit.spendApart) === 0;
  const days = options.days.map((n): CohortDay => {
    const reached = all.filter(([day]) => day + n <= options.today);
    if (reached.length === 0) return { day: n, installs: null, retained: null, retention: null, revenue: null, arpu: null, roas: null, uninstalled: null };
    const cohort = sum(reached, (unit) => unit.installs);
    const retained = sum(reached, (unit) => unit.retained.get(n) ?? 0);
    const revenue = money(sum(reached, (unit) => unit.revenue.get(n) ?? 0));
    const paid = sum(reached, (unit) => unit.spend);
    const revenueWhole = sum(reached, (unit) => unit.revenueApart.get(n) ?? 0) === 0;
    const paidWhole = sum(reached, (unit) => unit.spendApart) === 0;
    return {
      day: n,
      installs: cohort,
      retained,
      retention: cohort > 0 ? ratio(retained / cohort) : null,
      revenue,
      arpu: cohort > 0 && revenueWhole ? ratio(revenue / cohort) : null,
      roas: spendKnown && paid > 0 && revenueWhole && paidWhole ? ratio(revenue / paid) : null,
      uninstalled: sum(reached, (unit) => unit.uninstalled.get(n) ?? 0),
    };
  });
  return {
    installs,
    reattributions: sum(all, (unit) => unit.reattributions),
    spend,
    cpi: spend !== null && installs > 0 && spendWhole ? ratio(spend / installs) : null,
    days,
  };
}

/** The row's keys, as grouped, with the campaign's and the app's names. */
function labelled(keys: Group['keys'], options: ShapeOptions): Partial<CohortRow> {
  const row: Partial<CohortRow> = {};
  const others = options.groupBy.filter((group) => group !== 'day');
  for (const group of options.groupBy) {
    if (group === 'day') {
      row.day = dayOfNumber(keys.day!);
      continue;
    }
    const value = others.indexOf(group) === 0 ? keys.k1 : keys.k2;
    if (group === 'campaign') {
      row.campaign_id = value;
      row.campaign = value === null ? null : (options.labels.campaigns.get(value) ?? null);
    } else if (group === 'app') {
      row.app_id = value;
      row.app = value === null ? null : (options.labels.apps.get(value) ?? null);
    } else row[group] = value;
  }
  return row;
}

const KEY_FIELDS: Record<CohortGroup, keyof CohortRow> = {
  day: 'day', campaign: 'campaign_id', partner: 'partner', country: 'country', platform: 'platform', app: 'app_id', method: 'method',
};

/** Install days in order; within a day (or without one) the most installs first, then by key, none last. */
function compareRows(a: CohortRow, b: CohortRow, groupBy: readonly CohortGroup[]): number {
  if (a.day && b.day && a.day !== b.day) return a.day < b.day ? -1 : 1;
  if (a.installs !== b.installs) return b.installs - a.installs;
  for (const group of groupBy) {
    const x = a[KEY_FIELDS[group]] as string | null | undefined;
    const y = b[KEY_FIELDS[group]] as string | null | undefined;
    if (x === y) continue;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

const sum = (units: readonly [number, Unit][], value: (unit: Unit) => number) => units.reduce((total, [, unit]) => total + value(unit), 0);
/** Sums of decimal amounts collect binary noise (0.1 + 0.2): amounts show 6 decimals at most, ratios 4. */
const money = (value: number) => Math.round(value * 1e6) / 1e6;
const ratio = (value: number) => Math.round(value * 1e4) / 1e4;
