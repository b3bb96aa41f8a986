import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { DAY_ERROR, MAX_OFFSET_MINUTES, parseDay, parseTimestamp, TIMESTAMP_ERROR } from '../../src/shared/timestamp';

const MIN_MS = Date.parse('0001-01-01T00:00:00Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** ±HH:MM for an offset in minutes. */
function zone(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The wall-clock text of `utcMs` seen at `offset` minutes east of UTC, to the millisecond, zone not included. */
const wallClock = (utcMs: number, offset: number) => new Date(utcMs + offset * 60_000).toISOString().slice(0, 23);

const accepted = (raw: string) => {
  const parsed = parseTimestamp(raw);
  if ('error' in parsed) throw new Error(`${raw}: ${parsed.error}`);
  return parsed.value;
};
const refused = (raw: unknown, options: { bareDay?: boolean } = {}) => expect([raw, parseTimestamp(raw, options)]).toEqual([raw, { error: TIMESTAMP_ERROR }]);

// A wall-clock time whose text has a four-digit year, and an offset within what is accepted.
const wallMs = fc.integer({ min: MIN_MS, max: MAX_MS });
const offsets = fc.integer({ min: -MAX_OFFSET_MINUTES, max: MAX_OFFSET_MINUTES });

describe('parseTimestamp', () => {
  test('property: a wall time at any accepted offset is the instant the JS reference parser computes, when in range', () => {
    fc.assert(
      fc.property(wallMs, offsets, fc.integer({ min: 0, max: 999 }), (wall, offset, micros) => {
        const local = new Date(wall).toISOString().slice(0, 23);
        const text = `${local}${pad(micros, 3)}${zone(offset)}`;
        const reference = Date.parse(`${local}${zone(offset)}`);
        const parsed = parseTimestamp(text);
        if (reference < MIN_MS || reference > MAX_MS) {
          expect(parsed).toEqual({ error: TIMESTAMP_ERROR });
          return;
        }
        if ('error' in parsed) throw new Error(`${text}: ${parsed.error}`);
        expect(parsed.value.at.getTime()).toBe(reference);
        expect(parsed.value.iso).toBe(`${new Date(reference).toISOString().slice(0, 23)}${pad(micros, 3)}Z`);
      }),
      { numRuns: 5000 },
    );
  });

  test('property: the instants near both ends of the range round-trip; one millisecond past them is refused', () => {
    const near = fc.oneof(fc.integer({ min: MIN_MS - 86_400_000, max: MIN_MS + 86_400_000 }), fc.integer({ min: MAX_MS - 86_400_000, max: MAX_MS + 86_400_000 }));
    fc.assert(
      fc.property(near, offsets, (instant, offset) => {
        const localMs = instant + offset * 60_000;
        // Only wall times with a four-digit year can be written; others are the pattern's to refuse.
        if (localMs < MIN_MS || localMs > MAX_MS) return;
        const text = `${wallClock(instant, offset)}${zone(offset)}`;
        if (instant < MIN_MS || instant > MAX_MS) refused(text);
        else expect(accepted(text).at.getTime()).toBe(instant);
      }),
      { numRuns: 5000 },
    );
    expect(accepted('0001-01-01T00:00:00Z').at.getTime()).toBe(MIN_MS);
    expect(accepted('9999-12-31T23:59:59.999999999Z').iso).toBe('9999-12-31T23:59:59.999999Z');
    refused('0001-01-01T00:00:00+00:01');
    refused('9999-12-31T23:00:00-05:00');
  });

  test('property: every spelling of one instant gives that instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('1000-01-01T00:00:00Z'), max: Date.parse('9000-01-01T00:00:00Z') }), fc.integer({ min: -15, max: 15 }), (instant, hours) => {
        const seconds = Math.floor(instant / 1000) * 1000;
        const wall = wallClock(seconds, hours * 60);
        const sign = hours < 0 ? '-' : '+';
        const hh = pad(Math.abs(hours));
        const spellings = [
          `${wall}${zone(hours * 60)}`,
          `${wall.slice(0, 19)}${sign}${hh}00`,
          `${wall.slice(0, 19)}${sign}${hh}`,
          `${wall.slice(0, 19)}.000000000${zone(hours * 60)}`,
          `${wall.slice(0, 10)} ${wall.slice(11, 19)}${zone(hours * 60)}`,
          `${wall.slice(0, 10)}t${wall.slice(11, 19)}${zone(hours * 60)}`,
        ];
        if (hours === 0) spellings.push(`${wall.slice(0, 19)}Z`, `${wall.slice(0, 19)}z`);
        // A '+' in a query string that was not percent-encoded arrives as a blank.
        if (sign === '+') spellings.push(`${wall.slice(0, 19)} ${hh}:00`);
        if (wall.slice(17, 19) === '00') spellings.push(`${wall.slice(0, 16)}${zone(hours * 60)}`);
        for (const text of spellings) expect([text, accepted(text).at.getTime()]).toEqual([text, seconds]);
      }),
      { numRuns: 2000 },
    );
  });

  test('property: an offset past ±15:59 or with minutes past 59 is refused', () => {
    const badOffset = fc.oneof(
      fc.tuple(fc.integer({ min: 16, max: 99 }), fc.integer({ min: 0, max: 59 })),
      fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 60, max: 99 })),
    );
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') }), fc.constantFrom('+', '-'), badOffset, (instant, sign, [h, m]) => {
        refused(`${new Date(instant).toISOString().slice(0, 19)}${sign}${pad(h)}:${pad(m)}`);
        refused(`${new Date(instant).toISOString().slice(0, 19)}${sign}${pad(h)}${pad(m)}`);
      }),
    );
  });

  test('property: year 0000, impossible dates and clock values are refused', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        (y, mo, d, h, mi, s) => {
          const text = `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}Z`;
          const probe = new Date(0);
          probe.setUTCFullYear(y, mo - 1, d);
          const realDay = y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d;
          if (realDay && h <= 23 && mi <= 59 && s <= 59) expect(accepted(text).at.getTime()).toBe(Date.parse(text));
          else refused(text);
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('property: any text, and near-timestamps above all, is a valid in-range instant or the validation error, never a throw', () => {
    const nearTimestamp = fc.stringMatching(/^[0-9]{1,5}-[0-9]{1,3}-[0-9]{1,3}[Tt ][0-9]{1,3}:[0-9]{2}(:[0-9]{2}(\.[0-9]{0,12})?)?([Zz]|[+\- ][0-9]{2}(:?[0-9]{2})?)?$/);
    fc.assert(
      fc.property(fc.oneof(nearTimestamp, fc.string({ maxLength: 80 }), fc.anything()), fc.boolean(), (raw, bareDay) => {
        const parsed = parseTimestamp(raw, { bareDay });
        if ('error' in parsed) {
          expect(parsed.error).toBe(TIMESTAMP_ERROR);
          return;
        }
        const ms = parsed.value.at.getTime();
        expect(Number.isNaN(ms)).toBe(false);
        expect(ms >= MIN_MS && ms <= MAX_MS).toBe(true);
        expect(parsed.value.iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
        expect(Date.parse(parsed.value.iso.slice(0, 23) + 'Z')).toBe(ms);
      }),
      { numRuns: 5000 },
    );
  });

  test('a bare day is its UTC midnight only when asked for', () => {
    expect(parseTimestamp('2000-02-29', { bareDay: true })).toEqual({ value: { at: new Date('2000-02-29T00:00:00Z'), iso: '2000-02-29T00:00:00.000000Z' } });
    expect(parseTimestamp('0001-01-01', { bareDay: true })).toEqual({ value: { at: new Date(MIN_MS), iso: '0001-01-01T00:00:00.000000Z' } });
    refused('2000-02-29');
    for (const day of ['0000-01-01', '1900-02-29', '2026-04-31']) refused(day, { bareDay: true });
  });

  test('no zone, a leap second, 24:00, more than nine fraction digits and oversized text are refused', () => {
    for (const raw of ['2026-12-31T23:59:59', '2016-12-31T23:59:60Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:00.1234567890Z', `2026-01-01T00:00:00.${'1'.repeat(60)}Z`, '', 'tomorrow']) refused(raw);
  });
});

describe('parseDay', () => {
  test('property: agrees with the calendar for every YYYY-MM-DD of years 0 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), (y, m, d) => {
        const text = `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
        const probe = new Date(0);
        probe.setUTCFullYear(y, m - 1, d);
        const real = y >= 1 && m >= 1 && m <= 12 && d >= 1 && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
        expect(parseDay(text)).toEqual(real ? { value: text } : { error: DAY_ERROR });
      }),
      { numRuns: 3000 },
    );
  });

  test('property: every date of years 1 to 9999 is a day', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(MIN_MS), max: new Date(MAX_MS), noInvalidDate: true }), (date) => {
        expect(parseDay(date.toISOString().slice(0, 10))).toEqual({ value: date.toISOString().slice(0, 10) });
      }),
    );
  });

  test.each(['2025-1-01', ' 2025-01-01', '2025-01-01T00:00:00Z', '20250101'])('%s is not a day', (day) => expect(parseDay(day)).toEqual({ error: DAY_ERROR }));
});
