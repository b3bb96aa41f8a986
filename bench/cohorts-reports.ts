/**
 * The two statements bench:cohorts times, built by the reports' own SQL builders from a query as
 * the API would take it, with the seeded organization's zone and currency.
 */
import { breakdownSql } from '../src/analytics/breakdown/breakdown-sql';
import { cohortSql } from '../src/analytics/cohorts/cohort-sql';
import { parseCohortQuery } from '../src/analytics/cohorts/cohorts.model';
import { zoneWindow } from '../src/analytics/reporting/zone-days';

export interface ReportStatement {
  sql: string;
  params: unknown[];
  /** The rows in one order with numbers to 6 decimals, so both stores' answers compare as text. */
  shape(rows: Record<string, unknown>[]): string[];
}

interface BenchQuery {
  orgId: string;
  zone: string;
  from: string;
  to: string;
}

function normalised(rows: Record<string, unknown>[]): string[] {
  const cell = (value: unknown) => {
    if (typeof value === 'bigint') return Number(value);
    if (typeof value === 'number') return Math.round(value * 1e6) / 1e6;
    if (typeof value === 'string' && value !== '' && Number.isFinite(Number(value))) return Math.round(Number(value) * 1e6) / 1e6;
    return value ?? null;
  };
  return rows.map((row) => JSON.stringify(Object.keys(row).sort().map((key) => [key, cell(row[key])]))).sort();
}

/** A 30-day cohort report by campaign, days 0, 1, 3, 7, 14 and 30 (the shape). */
export function cohortStatement(q: BenchQuery): ReportStatement {
  const query = parseCohortQuery({ from: q.from, to: q.to, group_by: 'campaign', days: '0,1,3,7,14,30' });
  const window = zoneWindow(q.zone, query.from, query.to, Math.max(...query.days));
  return { ...cohortSql(query, { orgId: q.orgId, currency: 'USD', window }), shape: normalised };
}

/** A breakdown by country and OS over the whole range. */
export function breakdownStatement(q: BenchQuery): ReportStatement {
  const window = zoneWindow(q.zone, q.from, q.to);
  return { ...breakdownSql({ orgId: q.orgId, groupBy: ['country', 'os'], filters: {}, window, currency: 'USD', invalidThreshold: 50 }), shape: normalised };
}
