import type { TSchema } from '@sinclair/typebox';
import { t } from 'elysia';
import { SLUG_PATTERN } from '../links/links.model';
import { Timestamp } from '../shared/timestamp';
import { CAPTURED_PARAMS } from '../tracking/tracking.model';

/** The spec's edge ingest limit: rows per call. */
export const MAX_INGEST_EVENTS = 1000;
/** The spec's click_id length, in the characters a URL carries unencoded. */
export const CLICK_ID_PATTERN = '^[A-Za-z0-9_-]{4,64}$';
export const CLICK_ID_ERROR = 'must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -';
/** How far a row's `ts` may lie from the time it is received (docs/edge.md, "Decisions"). */
export const TS_FUTURE_MS = 5 * 60 * 1000;
export const TS_PAST_MS = 30 * 24 * 60 * 60 * 1000;

/** An optional field where null means absent, as many encoders write it. */
const optional = <T extends TSchema>(schema: T, error: string) => t.Optional(t.Union([schema, t.Null()], { error }));
const text = (what = 'must be a string or null') => optional(t.String(), what);

const adParams = Object.fromEntries(Object.keys(CAPTURED_PARAMS).map((name) => [name, text()])) as Record<
  keyof typeof CAPTURED_PARAMS,
  ReturnType<typeof text>
>;

/**
 * One click row of POST /api/ingest/clicks. Keys not listed are ignored (the spec's rows carry
 * free-form keys). Values are checked here for shape; ts, ip and url are checked in full by the
 * service, and the ad parameters are captured by the rules of /c
 * (src/tracking/pipeline/click-capture.ts).
 */
export const IngestRow = t.Object(
  {
    slug: t.String({ pattern: SLUG_PATTERN, error: 'must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -' }),
    domain: optional(t.String({ minLength: 1, maxLength: 259 }), 'must be a hostname, or null for the tracking host'),
    click_id: optional(t.String({ pattern: CLICK_ID_PATTERN }), `${CLICK_ID_ERROR}, or null`),
    ts: optional(Timestamp(), 'must be an ISO 8601 timestamp with a time zone, such as 2026-09-02T10:00:00Z, or null'),
    ip: optional(t.String({ maxLength: 64 }), 'must be an IPv4 or IPv6 address, or null'),
    user_agent: text(),
    referer: text(),
    url: optional(t.String(), 'must be an absolute http(s) URL, or null'),
    ...adParams,
  },
  { additionalProperties: true },
);
export type IngestRow = typeof IngestRow.static;

/** The envelope; each row is checked on its own, so one bad row never refuses the batch. */
export const IngestBody = t.Object(
  { events: t.Array(t.Unknown(), { minItems: 1, maxItems: MAX_INGEST_EVENTS, error: `must be an array of 1 to ${MAX_INGEST_EVENTS} click rows` }) },
  { additionalProperties: false },
);
export type IngestBody = typeof IngestBody.static;

export interface IngestResult {
  accepted: number;
  /** Rows not stored, by their index in `events`, each with the reason. */
  rejected: { index: number; error: string }[];
}

/** IngestResult as a model for the OpenAPI document. */
export const IngestResultBody = t.Object({
  accepted: t.Integer({ minimum: 0 }),
  rejected: t.Array(t.Object({ index: t.Integer({ minimum: 0 }), error: t.String() }), { description: 'rows not stored, by their index in events' }),
});
