/**
 * Days in the organization's reporting time zone (docs/reports.md, "Time zone"), for SQL that runs
 * unchanged on DuckDB and Postgres. A zone's offset from UTC is constant between its transitions
 * (at most a few in a report's range), so the offsets are worked out here, once per query, and a
 * row's day is `floor((epoch + offset) / 86400)` with the offset picked by a CASE over the
 * transitions: no time-zone lookup per row, which in DuckDB outweighs the rest of a scan.
 */

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** No zone is more than 14 hours from UTC (Pacific/Kiritimati is +14, Etc/GMT+12 is -12). */
const MAX_OFFSET_MS = 15 * 3_600_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** Whether `zone` is an IANA time zone this runtime knows (`UTC`, `Europe/Berlin`, ...). */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `instantMs`, in whole seconds (local time minus UTC). */
export function offsetSeconds(zone: string, instantMs: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(instantMs))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return Math.round((local - Math.floor(instantMs / 1000) * 1000) / 1000);
}

/** The local day of an instant, as days since 1970-01-01. */
export function localDayNumber(zone: string, instantMs: number): number {
  return Math.floor((instantMs / 1000 + offsetSeconds(zone, instantMs)) / 86_400);
}

/** A YYYY-MM-DD day as days since 1970-01-01; throws on text that is not a real day. */
export function dayNumberOf(day: string): number {
  const time = DAY.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== day) throw new RangeError(`not a day (YYYY-MM-DD): ${day}`);
  return time / DAY_MS;
}

/** Days since 1970-01-01 as YYYY-MM-DD. */
export function dayOfNumber(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The first instant whose local day is `dayNumber` or later: local midnight, or the transition
 * that skips it where a zone moves its clocks at midnight. Local days never run backwards by a
 * whole day, so a binary search over the 30 hours around UTC midnight finds it.
 */
export function zoneDayStart(zone: string, dayNumber: number): number {
  let low = dayNumber * DAY_MS - MAX_OFFSET_MS;
  let high = dayNumber * DAY_MS + MAX_OFFSET_MS;
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (localDayNumber(zone, middle) >= dayNumber) high = middle;
    else low = middle;
  }
  return high;
}

/** From `startMs` on, the zone is `offsetSeconds` from UTC, until the next interval's start. */
export interface OffsetInterval {
  startMs: number;
  offsetSeconds: number;
}

/**
 * The zone's offsets over [startMs, endMs): the first interval starts at startMs, each next one
 * at a transition (found to the second). Sampled every 6 hours: zones move their clocks at most
 * a few times a year, never twice within 6 hours.
 */
export function offsetIntervals(zone: string, startMs: number, endMs: number): OffsetInterval[] {
  const STEP = 6 * 3_600_000;
  const intervals: OffsetInterval[] = [{ startMs, offsetSeconds: offsetSeconds(zone, startMs) }];
  let previous = startMs;
  while (previous < endMs) {
    const next = Math.min(previous + STEP, endMs);
    const offset = offsetSeconds(zone, next);
    if (offset !== intervals[intervals.length - 1]!.offsetSeconds) {
      let low = previous;
      let high = next;
      while (high - low > 1000) {
        const middle = low + Math.floor((high - low) / 2000) * 1000;
        if (offsetSeconds(zone, middle) === offset) high = middle;
        else low = middle;
      }
      intervals.push({ startMs: high, offsetSeconds: offset });
    }
    previous = next;
  }
  return intervals;
}

/** A report's window in the zone: its first instant and the first instant after it, UTC. */
export interface ZoneWindow {
  zone: string;
  fromDay: number;
  toDay: number;
  start: Date;
  end: Date;
  intervals: OffsetInterval[];
}

/**
 * The local days `from` to `to` (included) of `zone` as UTC instants, with the offsets over them.
 * `extraDays` widens the offsets past `to`, for cohorts whose later days follow the range.
 */
export function zoneWindow(zone: string, from: string, to: string, extraDays = 0): ZoneWindow {
  const fromDay = dayNumberOf(from);
  const toDay = dayNumberOf(to);
  if (toDay < fromDay) throw new RangeError(`window ends (${to}) before it starts (${from})`);
  const start = zoneDayStart(zone, fromDay);
  const end = zoneDayStart(zone, toDay + 1);
  const offsetsEnd = extraDays > 0 ? zoneDayStart(zone, toDay + 1 + extraDays) : end;
  return { zone, fromDay, toDay, start: new Date(start), end: new Date(end), intervals: offsetIntervals(zone, start, offsetsEnd) };
}

/**
 * SQL for the local day (days since 1970-01-01, an integer) of a timestamptz column, over the
 * window's offsets. Rows outside the offsets' span take the nearest interval's offset. The
 * numbers are computed here, never taken from input, and checked to be integers.
 */
export function localDaySql(column: string, intervals: readonly OffsetInterval[]): string {
  return localBucketSql(column, intervals, 86_400);
}

/** As localDaySql, for buckets of `bucketSeconds` of local time (3600: the local hour, as hours since 1970-01-01 00:00). */
export function localBucketSql(column: string, intervals: readonly OffsetInterval[], bucketSeconds: number): string {
  const epoch = `EXTRACT(EPOCH FROM ${column})`;
  const seconds = (value: number) => {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
    return String(value);
  };
  let offset: string;
  if (intervals.length === 1) offset = seconds(intervals[0]!.offsetSeconds);
  else {
    const branches = intervals.slice(1).map((interval, index) => `WHEN ${epoch} < ${seconds(interval.startMs / 1000)} THEN ${seconds(intervals[index]!.offsetSeconds)}`);
    offset = `CASE ${branches.join(' ')} ELSE ${seconds(intervals[intervals.length - 1]!.offsetSeconds)} END`;
  }
  return `CAST(floor((${epoch} + ${offset}) / ${seconds(bucketSeconds)}) AS INTEGER)`;
}

/** SQL for a DATE column as days since 1970-01-01 (a cost's or a rate's day is already local). */
export function dateDaySql(column: string): string {
  return `CAST(${column} - DATE '1970-01-01' AS INTEGER)`;
}
