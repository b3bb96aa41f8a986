import { t } from 'elysia';
import { validationError } from '../http/errors';

/**
 * Query of GET /api/v1/clicks. limit and since arrive as text and are parsed by
 * parseClickFilter, so a bad value gets a message that says what is allowed, per field.
 */
export const ClickListQuery = t.Object({
  limit: t.Optional(t.String({ maxLength: 16 })),
  since: t.Optional(t.String({ maxLength: 64 })),
  gclid: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
});
export type ClickListQuery = typeof ClickListQuery.static;

const nullable = <T extends ReturnType<typeof t.String> | ReturnType<typeof t.Integer>>(schema: T) => t.Union([schema, t.Null()]);

/**
 * The Click read model of the interface, field for field, plus dropReason: why a stored click
 * never attributes (an ingestion step's reason, e.g. 'bot'), null for a click that counts.
 */
export const Click = t.Object({
  id: t.String(),
  createdAt: t.String(),
  gclid: nullable(t.String()),
  gbraid: nullable(t.String()),
  wbraid: nullable(t.String()),
  campaignExtId: nullable(t.String()),
  adGroupExtId: nullable(t.String()),
  creativeId: nullable(t.String()),
  keyword: nullable(t.String()),
  matchType: nullable(t.String()),
  network: nullable(t.String()),
  device: nullable(t.String()),
  nextHopUrl: t.String(),
  transparentParamPresent: t.Boolean(),
  forceTransparent: t.Boolean(),
  isBot: t.Boolean(),
  dropReason: nullable(t.String()),
  latencyMs: nullable(t.Integer()),
});
export type Click = typeof Click.static;

export const ClickList = t.Object({ data: t.Array(Click) });

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface ClickFilter {
  limit: number;
  /** Inclusive lower bound on created_at, as RFC 3339 text with an explicit offset. */
  since: string | null;
  gclid: string | null;
}

const LIMIT = /^[0-9]{1,4}$/;
// RFC 3339 date-time, or a bare date meaning its UTC midnight. A space before the offset is
// read as '+': an unencoded '+' in a query string arrives as a space.
const SINCE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?([Zz]|[+\- ]\d{2}:\d{2}))?$/;

/** Turns the validated query into a filter, or throws one 400 listing every bad field. */
export function parseClickFilter(query: ClickListQuery): ClickFilter {
  const fieldErrors: Record<string, string[]> = {};
  let limit = DEFAULT_LIMIT;
  if (query.limit !== undefined) {
    const value = LIMIT.test(query.limit) ? Number(query.limit) : NaN;
    if (value >= 1 && value <= MAX_LIMIT) limit = value;
    else fieldErrors.limit = [`must be an integer from 1 to ${MAX_LIMIT}`];
  }
  let since: string | null = null;
  if (query.since !== undefined) {
    since = normaliseSince(query.since);
    if (since === null) fieldErrors.since = ['must be an ISO 8601 date-time with a time zone, e.g. 2026-09-02T10:00:00Z'];
  }
  if (Object.keys(fieldErrors).length > 0) throw validationError(fieldErrors);
  return { limit, since, gclid: query.gclid ?? null };
}

function normaliseSince(text: string): string | null {
  const match = SINCE.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction, offset] = match;
  const y = Number(year);
  const m = Number(month);
  if (y < 1 || m < 1 || m > 12 || Number(day) < 1 || Number(day) > daysInMonth(y, m)) return null;
  if (hour === undefined) return `${year}-${month}-${day}T00:00:00Z`;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  let zone = offset!.toUpperCase();
  if (zone !== 'Z') {
    zone = zone.replace(' ', '+');
    if (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59) return null;
  }
  return `${year}-${month}-${day}T${hour}:${minute}:${second}${fraction ?? ''}${zone}`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
