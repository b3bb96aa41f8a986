import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { parseTimestamptz } from '../../src/db/timestamptz';
import { backends } from '../support/db';

const MIN_MS = Date.parse('0001-01-01T00:00:00Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

// Zones whose offsets, in the years they reach back to, are whole hours, half hours and local mean time with seconds.
const ZONES = ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Amsterdam', 'Pacific/Kiritimati'];

for (const backend of backends()) {
  describe(`timestamptz values read back on ${backend.name}`, async () => {
    const db = await backend.create();

    test('property: every instant of years 1 to 9999 reads back as itself, whatever the session time zone', async () => {
      const instants = fc.sample(fc.integer({ min: MIN_MS, max: MAX_MS }), 400);
      instants.push(MIN_MS, MAX_MS, Date.parse('0099-12-31T23:59:59.999Z'), Date.parse('1899-06-01T12:00:00Z'));
      for (const zone of ZONES) {
        const rows = await db.transaction(async (tx) => {
          await tx.query("SELECT set_config('TimeZone', $1, true)", [zone]);
          return tx.query<{ at: Date; text: string }>(
            'SELECT v::timestamptz AS at, v::timestamptz::text AS text FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n',
            [instants.map((ms) => new Date(ms).toISOString())],
          );
        });
        expect(rows.map((row) => [zone, row.text, row.at.getTime()])).toEqual(rows.map((row, i) => [zone, row.text, instants[i]!]));
      }
    });
  });
}

describe('parseTimestamptz', () => {
  test('reads the forms Postgres writes, BC years included', () => {
    expect(parseTimestamptz('2026-09-02 10:00:00.123456+02').toISOString()).toBe('2026-09-02T08:00:00.123Z');
    expect(parseTimestamptz('0001-01-01 00:00:00+00').toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseTimestamptz('1800-01-01 00:19:32+00:19:32').toISOString()).toBe('1800-01-01T00:00:00.000Z');
    expect(parseTimestamptz('2026-01-01 00:00:00-03:30').toISOString()).toBe('2026-01-01T03:30:00.000Z');
    expect(parseTimestamptz('0001-12-31 00:00:00+00 BC').toISOString()).toBe('0000-12-31T00:00:00.000Z');
    expect(Number.isNaN(parseTimestamptz('infinity').getTime())).toBe(true);
  });
});
