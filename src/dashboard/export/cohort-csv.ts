/**
 * The cohort report as CSV (docs/reports.md, "Cohorts", "CSV"): one record per row of the
 * report, the group's keys first, then the row's measures, then seven columns per cohort day
 * asked, `d{N}_installs` ... `d{N}_uninstalled`. A day not reached yet is empty, as null is.
 */
import type { CohortDay, CohortGroup, CohortReport, CohortRow } from '../../analytics/cohorts/cohorts.model';
import type { CsvCell } from '../../shared/csv';

/** The key columns of each grouping: a campaign and an app come with their names. */
const KEY_COLUMNS: Record<CohortGroup, readonly (keyof CohortRow)[]> = {
  day: ['day'],
  campaign: ['campaign_id', 'campaign'],
  partner: ['partner'],
  country: ['country'],
  platform: ['platform'],
  app: ['app_id', 'app'],
  method: ['method'],
};
const ROW_COLUMNS = ['installs', 'reattributions', 'spend', 'cpi'] as const;
export const COHORT_DAY_COLUMNS = ['installs', 'retained', 'retention', 'revenue', 'arpu', 'roas', 'uninstalled'] as const satisfies readonly (keyof CohortDay)[];

export function cohortCsvRecords(report: CohortReport): CsvCell[][] {
  const keys = (report.group_by as CohortGroup[]).flatMap((group) => KEY_COLUMNS[group]);
  const header = [...keys, ...ROW_COLUMNS, ...report.days.flatMap((n) => COHORT_DAY_COLUMNS.map((column) => `d${n}_${column}`))];
  const records = report.rows.map((row) => [
    ...keys.map((key) => (row[key] ?? null) as CsvCell),
    ...ROW_COLUMNS.map((column) => row[column]),
    ...row.days.flatMap((day) => COHORT_DAY_COLUMNS.map((column) => day[column])),
  ]);
  return [header, ...records];
}
