/**
 * The breakdown report as CSV (docs/dashboard.md, "Exports"): the grouped dimensions' keys first
 * (a campaign and a link with their name and slug), then the measures; amounts without an
 * exchange rate in two last columns, as `12.5 EUR; 3 GBP`.
 */
import type { BreakdownAnswer, BreakdownDimension, BreakdownRow } from '../../analytics/breakdown/breakdown.model';
import type { CsvCell } from '../../shared/csv';

const KEY_COLUMNS: Record<BreakdownDimension, readonly (keyof BreakdownRow)[]> = {
  day: ['day'],
  campaign: ['campaign_id', 'campaign'],
  partner: ['partner'],
  link: ['link_id', 'link'],
  country: ['country'],
  region: ['region'],
  os: ['os'],
  device: ['device'],
  platform: ['platform'],
  network: ['network'],
};
export const BREAKDOWN_MEASURE_COLUMNS = ['clicks', 'invalid_clicks', 'installs', 'conversions', 'revenue', 'spend', 'cpi', 'roas', 'cvr'] as const;

const apart = (sums: Record<string, number>): CsvCell => Object.entries(sums).map(([currency, sum]) => `${sum} ${currency}`).join('; ');

export function breakdownCsvRecords(report: BreakdownAnswer): CsvCell[][] {
  const keys = (report.group_by as BreakdownDimension[]).flatMap((dimension) => KEY_COLUMNS[dimension]);
  const header = [...keys, ...BREAKDOWN_MEASURE_COLUMNS, 'unconverted', 'unconverted_spend'];
  const records = report.rows.map((row) => [
    ...keys.map((key) => (row[key] ?? null) as CsvCell),
    ...BREAKDOWN_MEASURE_COLUMNS.map((column) => row[column]),
    apart(row.unconverted),
    apart(row.unconverted_spend),
  ]);
  return [header, ...records];
}
