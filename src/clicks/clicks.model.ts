import { t } from 'elysia';
import { CursorQuery, PageOf } from '../http/pagination';
import { validationError } from '../http/errors';
import { MAX_TIMESTAMP_LENGTH, parseTimestamp } from '../shared/timestamp';

/**
 * Query of GET /api/v1/clicks. limit and since arrive as text and are parsed by
 * parseClickFilter, so a bad value gets a message that says what is allowed, per field.
 */
export const ClickListQuery = t.Object({
  limit: t.Optional(t.String({ maxLength: 16 })),
  since: t.Optional(t.String({ maxLength: MAX_TIMESTAMP_LENGTH })),
  gclid: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
  cursor: CursorQuery,
});
export type ClickListQuery = typeof ClickListQuery.static;

const nullable = <T extends ReturnType<typeof t.String> | ReturnType<typeof t.Integer>>(schema: T) => t.Union([schema, t.Null()]);

/** What a smart link (/l) decided for the click (docs/click-export.md, "route"). */
export const ClickRoute = t.Object({
  rule_index: nullable(t.Integer()),
  rule_name: nullable(t.String()),
  action: t.Union([
    t.Literal('url'), t.Literal('store'), t.Literal('deep_link'), t.Literal('variants'), t.Literal('fallback'), t.Literal('destination'),
  ]),
  variant_index: nullable(t.Integer()),
  page: t.Union([t.Literal('interstitial'), t.Literal('qr'), t.Literal('preview'), t.Null()]),
});

/**
 * The Click read model of the interface, field for field, plus dropReason: why a stored click
 * never attributes (an ingestion step's reason, e.g. 'bot'), null for a click that counts, and
 * route: the smart-link decision, null for any other click.
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
  route: t.Union([ClickRoute, t.Null()]),
  /** 0 to 100 (docs/protect.md); `riskReasons` names the signals behind it, in the signal table's order. */
  riskScore: t.Integer({ minimum: 0, maximum: 100 }),
  riskReasons: t.Array(t.String()),
});
export type Click = typeof Click.static;

export const ClickList = PageOf(Click, 'newest first');

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface ClickFilter {
  limit: number;
  /** Inclusive lower bound on created_at, as UTC text to the microsecond (src/shared/timestamp.ts). */
  since: string | null;
  gclid: string | null;
}

const LIMIT = /^[0-9]{1,4}$/;

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
    // A bare date means its UTC midnight.
    const parsed = parseTimestamp(query.since, { bareDay: true });
    if ('error' in parsed) fieldErrors.since = [parsed.error];
    else since = parsed.value.iso;
  }
  if (Object.keys(fieldErrors).length > 0) throw validationError(fieldErrors);
  return { limit, since, gclid: query.gclid ?? null };
}
