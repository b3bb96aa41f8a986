import { ulidTimePrefix } from '../shared/ids';

/** A UTC day as the range of ULID keys minted in it: [lower, upper). */
export interface DayRange {
  /** YYYYMMDD, the partition's name suffix. */
  day: string;
  lower: string;
  upper: string;
}

const DAY_MS = 86_400_000;

/** The start of the UTC day `offsetDays` after the one `at` is in. */
export function utcDayStart(at: Date, offsetDays = 0): number {
  return Math.floor(at.getTime() / DAY_MS) * DAY_MS + offsetDays * DAY_MS;
}

export function dayRange(dayStartMs: number): DayRange {
  return {
    day: new Date(dayStartMs).toISOString().slice(0, 10).replaceAll('-', ''),
    lower: ulidTimePrefix(dayStartMs),
    upper: ulidTimePrefix(dayStartMs + DAY_MS),
  };
}

/** The ULID prefix below which every key is past a retention of `days` whole days before today. */
export function retentionCutoff(now: Date, days: number): string {
  return ulidTimePrefix(utcDayStart(now, -days));
}
