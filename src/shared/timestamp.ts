/**
 * The one reader of the timestamps and calendar days clients send (query strings, API and SDK
 * bodies). It accepts only what both a JS Date and a Postgres timestamptz hold, so a value it
 * passes can never become an Invalid Date or a database error. Rules: docs/http-rules.md, "Timestamps".
 */
import { FormatRegistry } from '@sinclair/typebox';
import { t } from 'elysia';

export type Parsed<T> = { value: T } | { error: string };

export interface Instant {
  /** The instant, to the millisecond. */
  at: Date;
  /** The same instant in UTC to the microsecond (YYYY-MM-DDTHH:MM:SS.ffffffZ), for Postgres. */
  iso: string;
}

/** Postgres refuses a zone displacement past 15:59; real zones stay within -12:00 and +14:00. */
export const MAX_OFFSET_MINUTES = 15 * 60 + 59;
export const MAX_TIMESTAMP_LENGTH = 64;
export const TIMESTAMP_ERROR =
  'must be an ISO 8601 timestamp with a time zone, such as 2026-09-02T10:00:00Z (offset at most ±15:59, years 0001 to 9999 in UTC)';
export const DAY_ERROR = 'must be a calendar date YYYY-MM-DD from 0001-01-01 to 9999-12-31';

// The date, 'T' (or 't', or a space), hours and minutes, optional seconds and 1 to 9 fraction
// digits, then Z or an offset as ±HH:MM, ±HHMM or ±HH. A space where the sign goes is a '+' that a
// query string decoded to a blank.
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:[Zz]|([+\- ])(\d{2})(?::?(\d{2}))?)$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

const MIN_MS = utcMillis(1, 1, 1);
const MAX_MS = utcMillis(10000, 1, 1) - 1;

/** Milliseconds since the epoch of a UTC wall time; setUTCFullYear keeps years 0 to 99 literal. */
function utcMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function isCalendarDay(year: number, month: number, day: number): boolean {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1) return false;
  const days = month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days;
}

/** A real calendar day written YYYY-MM-DD, years 0001 to 9999; the value is the text as given. */
export function parseDay(raw: unknown): Parsed<string> {
  const match = typeof raw === 'string' ? DAY.exec(raw) : null;
  if (!match || !isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3]))) return { error: DAY_ERROR };
  return { value: raw as string };
}

/**
 * An ISO 8601 timestamp with a zone whose instant, in UTC, falls in years 0001 to 9999. With
 * `bareDay`, a date alone is accepted as its UTC midnight. Never throws.
 */
export function parseTimestamp(raw: unknown, options: { bareDay?: boolean } = {}): Parsed<Instant> {
  if (typeof raw !== 'string' || raw.length > MAX_TIMESTAMP_LENGTH) return { error: TIMESTAMP_ERROR };
  if (options.bareDay && DAY.test(raw)) {
    if ('error' in parseDay(raw)) return { error: TIMESTAMP_ERROR };
    const [year, month, day] = raw.split('-').map(Number) as [number, number, number];
    return instant(new Date(utcMillis(year, month, day)), '000');
  }
  const match = TIMESTAMP.exec(raw);
  if (!match) return { error: TIMESTAMP_ERROR };
  const n = (group: number) => Number(match[group] ?? 0);
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [n(1), n(2), n(3), n(4), n(5), n(6), n(9), n(10)];
  if (!isCalendarDay(year, month, day) || hour > 23 || minute > 59 || second > 59 || offsetMinutes > 59) return { error: TIMESTAMP_ERROR };
  const offset = offsetHours * 60 + offsetMinutes;
  if (offset > MAX_OFFSET_MINUTES) return { error: TIMESTAMP_ERROR };
  const fraction = (match[7] ?? '').padEnd(6, '0');
  const sign = match[8] === '-' ? -1 : 1;
  const ms = utcMillis(year, month, day, hour, minute, second, Number(fraction.slice(0, 3))) - sign * offset * 60_000;
  if (!(ms >= MIN_MS && ms <= MAX_MS)) return { error: TIMESTAMP_ERROR };
  return instant(new Date(ms), fraction.slice(3, 6));
}

function instant(at: Date, microDigits: string): Parsed<Instant> {
  return { value: { at, iso: `${at.toISOString().slice(0, 23)}${microDigits}Z` } };
}

FormatRegistry.Set('svc-timestamp', (value) => 'value' in parseTimestamp(value));

/** A body field holding a timestamp: checked by parseTimestamp, reported under the field's path. */
export const Timestamp = () => t.String({ format: 'svc-timestamp', maxLength: MAX_TIMESTAMP_LENGTH, error: TIMESTAMP_ERROR });
/** The same, where null means "not given". */
export const NullableTimestamp = () => t.Union([Timestamp(), t.Null()], { error: `${TIMESTAMP_ERROR}, or null` });
