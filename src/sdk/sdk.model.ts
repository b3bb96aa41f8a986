import { t } from 'elysia';
import { PLATFORMS } from '../apps/apps.model';
import { ATTRIBUTION_METHODS } from '../attribution/attribution.model';
import { NullableTimestamp, Timestamp } from '../shared/timestamp';
import { Amount, MAX_AMOUNT } from '../http/strict-body';

/** The spec's SDK bodies (interface.md, "Resources and their fields"). Unknown fields are ignored, so older servers accept newer SDKs. */

/** An SDK may report any platform an app can be created for. */
export const SDK_PLATFORMS = PLATFORMS;
export const PUSH_PLATFORMS = ['ios', 'android', 'tvos', 'android_tv', 'fire_tv'] as const;

/** A closed set of strings; the validation message lists the allowed values. */
const oneOf = <T extends string>(values: readonly T[]) => t.Union(values.map((value) => t.Literal(value)));

const DeviceId = t.String({ minLength: 8, maxLength: 128 });
const ShortText = t.String({ maxLength: 128 });
const nullable = <S extends Parameters<typeof t.Nullable>[0]>(schema: S) => t.Optional(t.Nullable(schema));
const Currency = t.String({ pattern: '^[A-Za-z]{3}$' });
const InstallId = t.String({ minLength: 1, maxLength: 64 });

/** What one event's free-form params may hold (docs/http-rules.md, "Input limits"); checked by the service. */
export const MAX_EVENT_PARAMS_KEYS = 50;
export const MAX_EVENT_PARAM_KEY_LENGTH = 128;
export const MAX_EVENT_PARAMS_BYTES = 4096;
export const EVENT_PARAMS_ERROR = `must be an object of at most ${MAX_EVENT_PARAMS_KEYS} keys (each at most ${MAX_EVENT_PARAM_KEY_LENGTH} characters) and ${MAX_EVENT_PARAMS_BYTES} bytes as JSON, or null`;

export const InstallRequest = t.Object({
  device_id: DeviceId,
  platform: oneOf(SDK_PLATFORMS),
  os_version: t.Optional(ShortText),
  app_version: t.Optional(ShortText),
  sdk_version: t.Optional(ShortText),
  click_id: nullable(t.String({ minLength: 4, maxLength: 64 })),
  install_referrer: nullable(t.String({ maxLength: 4096 })),
  gclid: nullable(t.String({ maxLength: 256 })),
  installed_at: t.Optional(Timestamp()),
  locale: t.Optional(t.String({ maxLength: 35 })),
  timezone: t.Optional(t.String({ maxLength: 64 })),
  advertising_id: nullable(t.String({ maxLength: 128 })),
  limit_ad_tracking: t.Optional(t.Boolean()),
  apple_attribution_token: nullable(t.String({ maxLength: 4096 })),
  ttclid: nullable(t.String({ maxLength: 512 })),
  sc_click_id: nullable(t.String({ maxLength: 512 })),
});
export type InstallRequest = typeof InstallRequest.static;

export interface InstallResponse {
  install_id: string;
  attribution: { method: string; campaign: string | null; click_id: string | null; deep_link_path: string | null };
  is_reattribution: boolean;
}

/** The SDK answers of the spec, as models for the OpenAPI document (src/http/documented.ts). */
const orNull = <S extends Parameters<typeof t.Nullable>[0]>(schema: S) => t.Nullable(schema);
export const InstallResponseBody = t.Object({
  install_id: t.String(),
  attribution: t.Object({
    method: oneOf(ATTRIBUTION_METHODS),
    campaign: orNull(t.String()),
    click_id: orNull(t.String()),
    deep_link_path: orNull(t.String({ description: 'the deferred deep link to open' })),
  }),
  is_reattribution: t.Boolean(),
});
export const EventsResultBody = t.Object({ accepted: t.Integer({ minimum: 0 }) });
export const OpenResultBody = t.Object({ reengagement_id: t.String(), attributed: t.Boolean(), campaign_id: orNull(t.String()), deep_link_path: orNull(t.String()) });
export const PushTokenResultBody = t.Object({ install_id: t.String() });
export const SubscriptionResultBody = t.Object({ subscription_id: t.String(), install_id: orNull(t.String()), linked: t.Boolean(), created: t.Boolean() });
export const AdRevenueResultBody = t.Object({ accepted: t.Integer({ minimum: 0 }), install_id: orNull(t.String()) });

export const EventsRequest = t.Object({
  device_id: DeviceId,
  install_id: nullable(InstallId),
  events: t.Array(
    t.Object({
      name: t.String({ minLength: 1, maxLength: 64 }),
      value: t.Optional(t.Union([Amount({ signed: true }), t.Null()], { error: `must be null or a number from ${-MAX_AMOUNT} to ${MAX_AMOUNT}` })),
      currency: nullable(Currency),
      params: nullable(t.Record(t.String(), t.Unknown())),
      occurred_at: t.Optional(Timestamp()),
    }),
    { minItems: 1, maxItems: 100 },
  ),
});
export type EventsRequest = typeof EventsRequest.static;

export const OpenRequest = t.Object({
  device_id: DeviceId,
  click_id: nullable(t.String({ minLength: 4, maxLength: 64 })),
  url: nullable(t.String({ maxLength: 4096 })),
  occurred_at: t.Optional(Timestamp()),
});
export type OpenRequest = typeof OpenRequest.static;

export const PushTokenRequest = t.Object({
  device_id: DeviceId,
  push_token: t.String({ minLength: 1, maxLength: 4096 }),
  platform: oneOf(PUSH_PLATFORMS),
});
export type PushTokenRequest = typeof PushTokenRequest.static;

export const SubscriptionRequest = t.Object({
  device_id: DeviceId,
  install_id: nullable(InstallId),
  store: oneOf(['apple', 'google']),
  original_transaction_id: nullable(t.String({ minLength: 1, maxLength: 256 })),
  purchase_token: nullable(t.String({ minLength: 1, maxLength: 4096 })),
  product_id: t.String({ minLength: 1, maxLength: 256 }),
  is_trial: t.Optional(t.Boolean()),
  // Stored as bigint; above 2^53 - 1 a JSON number no longer names one integer.
  price_micros: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, error: `must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}` })),
  currency: nullable(Currency),
  expires_at: t.Optional(NullableTimestamp()),
  occurred_at: t.Optional(NullableTimestamp()),
});
export type SubscriptionRequest = typeof SubscriptionRequest.static;

export const AdRevenueRequest = t.Object({
  device_id: DeviceId,
  install_id: nullable(InstallId),
  events: t.Array(
    t.Object({
      network: t.String({ minLength: 1, maxLength: 128 }),
      ad_unit: nullable(t.String({ maxLength: 256 })),
      format: nullable(t.String({ maxLength: 64 })),
      placement: nullable(t.String({ maxLength: 256 })),
      revenue: Amount(),
      currency: t.Optional(Currency),
      precision: nullable(t.String({ maxLength: 64 })),
      source: nullable(t.String({ maxLength: 128 })),
      ts: t.Optional(NullableTimestamp()),
    }),
    { minItems: 1, maxItems: 100 },
  ),
});
export type AdRevenueRequest = typeof AdRevenueRequest.static;
