import { t } from 'elysia';

/**
 * The Privacy Sandbox endpoints' inputs, and the two registration headers' JSON as this service
 * writes it (docs/privacy-sandbox.md). Query values arrive as text; `value` is read by the
 * trigger service so that "not a number" gets its own message.
 */

const QueryText = (maxLength: number) => t.Optional(t.String({ maxLength }));

export const RegisterSourceQuery = t.Object({
  link: QueryText(1024),
  campaign: QueryText(1024),
});
export type RegisterSourceQuery = typeof RegisterSourceQuery.static;

export const RegisterTriggerQuery = t.Object({
  event: QueryText(64),
  value: QueryText(1024),
});
export type RegisterTriggerQuery = typeof RegisterTriggerQuery.static;

/** An unsigned 64-bit integer in decimal, the API's string form of ids and keys. */
const Uint64Text = t.String({ pattern: '^(0|[1-9][0-9]{0,19})$' });
/** A 128-bit key piece: `0x` and 32 hex digits. */
const KeyPiece = t.String({ pattern: '^0x[0-9a-f]{32}$' });

export const SourceRegistration = t.Object(
  {
    source_event_id: Uint64Text,
    destination: t.String(),
    expiry: t.String({ pattern: '^[0-9]+$' }),
    priority: t.String({ pattern: '^-?[0-9]+$' }),
    filter_data: t.Record(t.String({ maxLength: 25 }), t.Array(t.String({ maxLength: 25 }), { maxItems: 50 })),
    aggregation_keys: t.Record(t.String({ maxLength: 25 }), KeyPiece),
  },
  { additionalProperties: false },
);
export type SourceRegistration = typeof SourceRegistration.static;

export const TriggerRegistration = t.Object(
  {
    event_trigger_data: t.Array(t.Object({ trigger_data: Uint64Text, deduplication_key: Uint64Text }, { additionalProperties: false })),
    aggregatable_trigger_data: t.Array(
      t.Object({ key_piece: KeyPiece, source_keys: t.Array(t.String({ maxLength: 25 })) }, { additionalProperties: false }),
    ),
    aggregatable_values: t.Record(t.String({ maxLength: 25 }), t.Integer({ minimum: 1, maximum: 65536 })),
  },
  { additionalProperties: false },
);
export type TriggerRegistration = typeof TriggerRegistration.static;

/** Where a report arrived: its kind, and for a debug report the path under `debug/`. */
export type ReportKind = 'event' | 'aggregate' | 'debug';

export const SOURCE_HEADER = 'Attribution-Reporting-Register-Source';
export const TRIGGER_HEADER = 'Attribution-Reporting-Register-Trigger';
/** What the browser says it will register from this response (a structured-header dictionary). */
export const ELIGIBLE_HEADER = 'attribution-reporting-eligible';
export const WELL_KNOWN_PREFIX = '/.well-known/attribution-reporting';
