import { CursorQuery, PageOf } from '../http/pagination';
import { t } from 'elysia';
import { Amount } from '../http/strict-body';

/** The spec's ConversionInput: the JSON body of POST /api/v1/conversions. */
export const ConversionInput = t.Object(
  {
    click_id: t.Optional(t.String({ minLength: 4, maxLength: 64 })),
    gclid: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
    event: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    value: t.Optional(Amount()),
    currency: t.Optional(t.String({ pattern: '^[A-Za-z]{3}$', error: 'Expected exactly 3 letters (ISO 4217)' })),
    order_id: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);
export type ConversionInput = typeof ConversionInput.static;

/**
 * GET/POST /postback query. Every value arrives as text, so the route only bounds sizes here
 * and the service checks the same rules as ConversionInput after converting `value`.
 * Unknown parameters are ignored: postback URLs often carry the network's own extras.
 */
const QueryText = t.Optional(t.String({ maxLength: 1024 }));
export const PostbackQuery = t.Object({
  api_key: QueryText,
  click_id: QueryText,
  gclid: QueryText,
  event: QueryText,
  value: QueryText,
  currency: QueryText,
  order_id: QueryText,
});
export type PostbackQuery = typeof PostbackQuery.static;

export const DEFAULT_CONVERSIONS_LIMIT = 100;
export const ListConversionsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_CONVERSIONS_LIMIT })),
  cursor: CursorQuery,
});
export type ListConversionsQuery = typeof ListConversionsQuery.static;

export interface ConversionResult {
  ok: true;
  id: string;
  matched: boolean;
}

/** The spec's ConversionResult and Conversion, as models for the OpenAPI document (src/http/documented.ts). */
export const ConversionResultBody = t.Object({ ok: t.Literal(true), id: t.String(), matched: t.Boolean({ description: 'true when a click was found' }) });

const nullableText = t.Union([t.String(), t.Null()]);
export const ConversionBody = t.Object({
  id: t.String(),
  createdAt: t.String({ description: 'ISO 8601 timestamp' }),
  clickId: nullableText,
  campaignId: nullableText,
  eventName: t.String(),
  value: t.Union([t.Number(), t.Null()]),
  currency: nullableText,
  orderId: nullableText,
  gclid: nullableText,
  source: t.String({ description: 'postback, api or import' }),
});
export const ConversionListBody = PageOf(ConversionBody, 'most recent first');

export type ConversionSource = 'postback' | 'api';

/** The spec's Conversion read model, field for field. */
export interface Conversion {
  id: string;
  createdAt: string;
  clickId: string | null;
  campaignId: string | null;
  eventName: string;
  value: number | null;
  currency: string | null;
  orderId: string | null;
  gclid: string | null;
  source: string;
}

/** A conversion as stored (sql/0001_core.sql). */
export interface ConversionRow {
  id: string;
  org_id: string;
  click_id: string | null;
  campaign_id: string | null;
  event_name: string;
  value: number | null;
  currency: string | null;
  order_id: string | null;
  gclid: string | null;
  source: string;
  matched: boolean;
  created_at: Date;
}

export function toConversion(row: ConversionRow): Conversion {
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    clickId: row.click_id,
    campaignId: row.campaign_id,
    eventName: row.event_name,
    value: row.value,
    currency: row.currency,
    orderId: row.order_id,
    gclid: row.gclid,
    source: row.source,
  };
}
