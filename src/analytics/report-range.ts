/**
 * The day range of an analytics report: `from` and `to` are UTC calendar days, both included.
 * Every report (pivot, summaries, the dashboard export) reads its range through parseReportRange.
 */
import { Type } from '@sinclair/typebox';
import { HttpError, validationError, type ValidationBody } from '../http/errors';
import { DAY_ERROR, parseDay } from '../shared/timestamp';

/** The longest range one report covers, in days (a leap year). */
export const MAX_REPORT_DAYS = 366;
const DAY_MS = 86_400_000;

export const ReportDay = (what: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: `${what} (UTC calendar day, YYYY-MM-DD, included)`, error: DAY_ERROR });

export interface ReportRange {
  /** YYYY-MM-DD, as given. */
  from: string;
  to: string;
  /** The first instant of `from` and the first instant after `to`, in UTC. */
  start: Date;
  end: Date;
}

/** Checks both days, that `to` is not before `from`, and that the range spans at most MAX_REPORT_DAYS. */
export function parseReportRange(input: { from: unknown; to: unknown }): ReportRange {
  const errors: Record<string, string[]> = {};
  const from = parseDay(input.from);
  const to = parseDay(input.to);
  if ('error' in from) errors.from = [from.error];
  if ('error' in to) errors.to = [to.error];
  if ('error' in from || 'error' in to) throw validationError(errors);
  const start = dayStart(from.value);
  const last = dayStart(to.value);
  if (last < start) throw validationError({ to: ['must be the same day as from or later'] });
  const days = (last.getTime() - start.getTime()) / DAY_MS + 1;
  if (days > MAX_REPORT_DAYS) throw validationError({ to: [`must be at most ${MAX_REPORT_DAYS} days from from, both included`] });
  return { from: from.value, to: to.value, start, end: new Date(last.getTime() + DAY_MS) };
}

/**
 * As parseReportRange, for a query checked whole: a bad range's messages go into `fieldErrors`
 * beside the other fields' (one 400 naming them all) and the answer is undefined.
 */
export function collectReportRange(input: { from: unknown; to: unknown }, fieldErrors: Record<string, string[]>): ReportRange | undefined {
  try {
    return parseReportRange(input);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    Object.assign(fieldErrors, (error.body.error as ValidationBody).fieldErrors);
    return undefined;
  }
}

/** The `days` days that end with the UTC day `last` (YYYY-MM-DD, included): a weekly review's, say. */
export function daysEndingOn(last: string, days: number): ReportRange {
  return parseReportRange({ from: new Date(dayStart(last).getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10), to: last });
}

/** The UTC day of an instant, YYYY-MM-DD. */
export const utcDayOf = (at: Date) => at.toISOString().slice(0, 10);

function dayStart(day: string): Date {
  const [year, month, dayOfMonth] = day.split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, dayOfMonth);
  return date;
}
