import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { dayNumberOf, dayOfNumber, isTimeZone, localDayNumber, offsetIntervals, zoneDayStart, zoneWindow } from '../../../src/analytics/reporting/zone-days';

const DAY_MS = 86_400_000;

/** The local calendar day of an instant as Intl names it, independently of offsetSeconds. */
function intlDay(zone: string, instantMs: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(instantMs));
}

/** The day the interval arithmetic gives, as the SQL computes it: floor((epoch + offset) / 86400). */
function intervalDay(intervals: ReturnType<typeof offsetIntervals>, instantMs: number): number {
  let offset = intervals[0]!.offsetSeconds;
  for (const interval of intervals) if (instantMs >= interval.startMs) offset = interval.offsetSeconds;
  return Math.floor((Math.floor(instantMs / 1000) + offset) / 86_400);
}

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'America/Havana', 'Pacific/Kiritimati', 'Etc/GMT+12'];

describe('zone days', () => {
  test('names the zones the runtime knows, and refuses others', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  test('local midnight of a day, on both sides of a change of the clocks', () => {
    // Berlin: UTC+1 in winter, UTC+2 from 2026-03-29 01:00 UTC.
    expect(new Date(zoneDayStart('Europe/Berlin', dayNumberOf('2026-03-29'))).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(new Date(zoneDayStart('Europe/Berlin', dayNumberOf('2026-03-30'))).toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(new Date(zoneDayStart('UTC', dayNumberOf('2026-03-30'))).toISOString()).toBe('2026-03-30T00:00:00.000Z');
    // Havana moves its clocks at midnight in March: 2026-03-08 begins at 01:00 local, 05:00 UTC.
    expect(intlDay('America/Havana', zoneDayStart('America/Havana', dayNumberOf('2026-03-08')))).toBe('2026-03-08');
    expect(intlDay('America/Havana', zoneDayStart('America/Havana', dayNumberOf('2026-03-08')) - 1000)).toBe('2026-03-07');
  });

  test('a window of a year holds each transition once', () => {
    const window = zoneWindow('Europe/Berlin', '2026-01-01', '2026-12-31');
    expect(window.intervals.map((interval) => interval.offsetSeconds)).toEqual([3600, 7200, 3600]);
    expect(new Date(window.intervals[1]!.startMs).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(new Date(window.intervals[2]!.startMs).toISOString()).toBe('2026-10-25T01:00:00.000Z');
    expect(zoneWindow('UTC', '2026-01-01', '2026-12-31').intervals).toHaveLength(1);
    expect(() => zoneWindow('UTC', '2026-02-02', '2026-02-01')).toThrow(RangeError);
    expect(() => zoneWindow('UTC', '2026-02-30', '2026-03-01')).toThrow(RangeError);
  });

  test('property: the interval arithmetic gives the day Intl names, for any instant of the window', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: dayNumberOf('2000-01-01'), max: dayNumberOf('2037-12-31') }),
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (zone, fromDay, length, where) => {
          const window = zoneWindow(zone, dayOfNumber(fromDay), dayOfNumber(fromDay + length));
          const instant = window.start.getTime() + Math.floor((window.end.getTime() - window.start.getTime() - 1) * where);
          const day = intervalDay(window.intervals, instant);
          expect(dayOfNumber(day)).toBe(intlDay(zone, instant));
          expect(day).toBe(localDayNumber(zone, instant));
          expect(day).toBeGreaterThanOrEqual(window.fromDay);
          expect(day).toBeLessThanOrEqual(window.toDay);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('property: the window starts at the first instant of its first day', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: dayNumberOf('2000-01-01'), max: dayNumberOf('2037-12-31') }), (zone, day) => {
        const start = zoneDayStart(zone, day);
        expect(intlDay(zone, start)).toBe(dayOfNumber(day));
        expect(intlDay(zone, start - 1000) < dayOfNumber(day)).toBe(true);
        expect(Math.abs(start - day * DAY_MS)).toBeLessThanOrEqual(15 * 3_600_000);
      }),
      { numRuns: 300 },
    );
  });
});
