/**
 * The hour and weekday in an IANA time zone, for `hours` and `weekdays` conditions. Each zone's
 * offset is read from Intl once per quarter hour and the rest is arithmetic on shared, frozen
 * results; a quarter hour whose two ends disagree holds a change (St. John's changed at 00:01
 * local time), and is read minute by minute.
 */
import { WEEKDAYS, type Weekday } from './rules.model';

export interface ZonedTime {
  readonly hour: number;
  readonly weekday: Weekday;
}

const MINUTE_MS = 60_000;
const QUARTER_HOUR_MS = 15 * MINUTE_MS;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** 1970-01-01 was a Thursday: index 3 from Monday. */
const EPOCH_WEEKDAY = 3;
const MAX_ZONES = 1000;

/** Every (weekday, hour) answer, made once: a lookup never allocates one. */
const ANSWERS: readonly ZonedTime[] = WEEKDAYS.flatMap((weekday) => Array.from({ length: 24 }, (_, hour) => Object.freeze({ hour, weekday })));

interface ZoneOffset {
  formatter: Intl.DateTimeFormat;
  offsetMs: number;
  /** The quarter hour (or, around a change, the minute) [from, until) the offset holds for. */
  from: number;
  until: number;
}

const zones = new Map<string, ZoneOffset>();

/**
 * The canonical spelling of an IANA zone name (`europe/berlin` -> `Europe/Berlin`), or null for a
 * name Intl does not know or a bare UTC offset such as `+01:00`.
 */
export function canonicalTimeZone(raw: string): string | null {
  if (raw.length === 0 || raw.length > 64) return null;
  let zone: string;
  try {
    zone = new Intl.DateTimeFormat('en-US', { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return /^[A-Za-z]/.test(zone) ? zone : null;
}

/** Throws a RangeError for a zone Intl does not know: callers pass zones canonicalTimeZone accepted. */
export function zonedHourAndWeekday(tz: string, nowMs: number): ZonedTime {
  let zone = zones.get(tz);
  if (!zone) {
    if (zones.size >= MAX_ZONES) zones.clear();
    const formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    zone = { formatter, offsetMs: 0, from: 0, until: -1 };
    zones.set(tz, zone);
  }
  if (nowMs < zone.from || nowMs >= zone.until) readOffset(zone, nowMs);
  const local = nowMs + zone.offsetMs;
  const hour = Math.floor(local / HOUR_MS) - Math.floor(local / DAY_MS) * 24;
  const weekday = (((Math.floor(local / DAY_MS) + EPOCH_WEEKDAY) % 7) + 7) % 7;
  return ANSWERS[weekday * 24 + hour]!;
}

/**
 * The offset for the quarter hour holding `nowMs`, when its first and last minutes agree (offsets
 * change at most once in a quarter hour, on a whole minute); else for the minute holding it.
 */
function readOffset(zone: ZoneOffset, nowMs: number): void {
  const quarter = Math.floor(nowMs / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  const offsetMs = offsetAt(zone.formatter, quarter);
  if (offsetAt(zone.formatter, quarter + QUARTER_HOUR_MS - MINUTE_MS) === offsetMs) {
    Object.assign(zone, { from: quarter, until: quarter + QUARTER_HOUR_MS, offsetMs });
    return;
  }
  const minute = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  Object.assign(zone, { from: minute, until: minute + MINUTE_MS, offsetMs: offsetAt(zone.formatter, minute) });
}

/** Local wall time minus UTC at `atMs` (a whole minute), as the formatter reads it. */
function offsetAt(formatter: Intl.DateTimeFormat, atMs: number): number {
  const fields: Record<string, number> = {};
  for (const part of formatter.formatToParts(atMs)) if (part.type !== 'literal') fields[part.type] = Number(part.value);
  const wall = Date.UTC(fields.year!, fields.month! - 1, fields.day!, fields.hour!, fields.minute!);
  return wall - atMs;
}
