/**
 * Reads a timestamptz as Postgres writes it (DateStyle ISO) into a Date, for both adapters.
 * `new Date(text)`, the drivers' own reader, takes years 0 to 99 for 1900s or 2000s ones and
 * cannot read a local-mean-time offset with seconds or a BC year.
 */

// 2026-09-02 10:00:00.123456+02, +05:30, +00:19:32, with ' BC' after the offset for years before 1.
const STORED = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?( BC)?$/;

export function parseTimestamptz(text: string): Date {
  const match = STORED.exec(text);
  // 'infinity' and '-infinity' have no Date; they read as an Invalid Date, as the drivers' own reader reads them.
  if (!match) return new Date(text);
  const n = (group: number) => Number(match[group] ?? 0);
  const year = match[12] ? 1 - n(1) : n(1);
  const date = new Date(0);
  date.setUTCFullYear(year, n(2) - 1, n(3));
  date.setUTCHours(n(4), n(5), n(6), Number((match[7] ?? '').padEnd(3, '0').slice(0, 3)));
  const offsetSeconds = (match[8] === '-' ? -1 : 1) * (n(9) * 3600 + n(10) * 60 + n(11));
  return new Date(date.getTime() - offsetSeconds * 1000);
}
