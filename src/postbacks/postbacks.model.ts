import { t } from 'elysia';
import { CursorQuery } from '../http/pagination';

/** Macros a destination URL may carry; each is replaced by the URL-encoded conversion field. */
export const MACROS = ['click_id', 'gclid', 'event', 'value', 'currency', 'order_id', 'campaign_id', 'conversion_id'] as const;
export type Macro = (typeof MACROS)[number];

export const DestinationInput = t.Object(
  {
    url: t.String({ minLength: 1, maxLength: 2048 }),
    method: t.Optional(t.Union([t.Literal('GET'), t.Literal('POST')], { error: "Expected 'GET' or 'POST'" })),
    events: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 50, uniqueItems: true })),
    secret: t.Optional(t.String({ minLength: 16, maxLength: 256 })),
  },
  { additionalProperties: false },
);
export type DestinationInput = typeof DestinationInput.static;

export const DestinationParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

export const DeliveryStatus = t.Union([t.Literal('pending'), t.Literal('delivered'), t.Literal('failed'), t.Literal('cancelled')], {
  error: "Expected one of 'pending', 'delivered', 'failed', 'cancelled'",
});
export type DeliveryStatus = typeof DeliveryStatus.static;

export const DEFAULT_POSTBACK_LIST_LIMIT = 100;
const ListLimit = t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_POSTBACK_LIST_LIMIT }));

/** A page of destinations: an organization has at most 20 live ones, so the default page holds them all. */
export const ListDestinationsQuery = t.Object({ limit: ListLimit, cursor: CursorQuery });

export const ListDeliveriesQuery = t.Object({
  limit: ListLimit,
  cursor: CursorQuery,
  status: t.Optional(DeliveryStatus),
  conversion_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  destination_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
});

export interface DestinationRow {
  id: string;
  org_id: string;
  url: string;
  method: 'GET' | 'POST';
  events: string[] | null;
  secret: string;
  created_at: Date;
}

/** A destination as listed: the secret is shown once, at creation, and never again. */
export interface Destination {
  id: string;
  url: string;
  method: 'GET' | 'POST';
  events: string[] | null;
  createdAt: string;
}

export function toDestination(row: DestinationRow): Destination {
  return { id: row.id, url: row.url, method: row.method, events: row.events, createdAt: row.created_at.toISOString() };
}

export interface DeliveryRow {
  id: string;
  destination_id: string;
  conversion_id: string;
  event_name: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
}

export interface Delivery {
  id: string;
  destinationId: string;
  conversionId: string;
  eventName: string;
  status: DeliveryStatus;
  attempts: number;
  /** When a pending delivery is next tried; null once it is settled. */
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    destinationId: row.destination_id,
    conversionId: row.conversion_id,
    eventName: row.event_name,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}

/** The conversion fields a delivery renders into its URL and body. */
export interface ConversionPayload {
  id: string;
  event: string;
  click_id: string | null;
  gclid: string | null;
  campaign_id: string | null;
  value: number | null;
  currency: string | null;
  order_id: string | null;
  matched: boolean;
  source: string;
  created_at: string;
}
