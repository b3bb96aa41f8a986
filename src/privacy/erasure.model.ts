import { t } from 'elysia';

/** What a request may name, one per request (docs/privacy.md, "What each subject erases"). */
export const SUBJECT_KINDS = ['device_id', 'advertising_id', 'install_id', 'click_id', 'ip'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

/** The longest day range an `ip` request may name: a request of years is a mistake, not a person. */
export const MAX_IP_RANGE_DAYS = 366;

const DAY = t.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', error: 'Expected a date as YYYY-MM-DD' });

/**
 * POST /api/v1/privacy/erasure. Exactly one subject field; `from` and `to` (UTC days, both
 * included) go with `ip` and only with it. The service checks what the schema cannot.
 */
export const ErasureBody = t.Object(
  {
    device_id: t.Optional(t.String({ minLength: 8, maxLength: 128, description: 'the platform device id, or its SHA-256 hex, as the SDK sends it' })),
    advertising_id: t.Optional(t.String({ minLength: 8, maxLength: 128, description: 'IDFA, GAID or another advertising id' })),
    install_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    click_id: t.Optional(t.String({ minLength: 4, maxLength: 64, description: 'the svc_click_id value' })),
    ip: t.Optional(t.String({ minLength: 2, maxLength: 64, description: 'an IPv4 or IPv6 address; needs from and to' })),
    from: t.Optional(DAY),
    to: t.Optional(DAY),
  },
  { additionalProperties: false },
);
export type ErasureBody = typeof ErasureBody.static;

/** POST /api/sdk/v1/forget: the calling app's own device. Unknown fields are ignored, as on every SDK endpoint. */
export const ForgetBody = t.Object({ device_id: t.String({ minLength: 8, maxLength: 128 }) });
export type ForgetBody = typeof ForgetBody.static;

export const ErasureParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** A checked subject: `value` as the passes use it (a device id already hashed, an address canonical). */
export type Subject =
  | { kind: 'device_id' | 'advertising_id' | 'install_id' | 'click_id'; value: string }
  | { kind: 'ip'; value: string; fromDay: string; toDay: string };

/** Rows deleted or anonymised, by table. */
export type ErasureCounts = Record<string, number>;

export type ErasureStatus = 'pending' | 'completed' | 'failed';

export interface ErasureView {
  id: string;
  status: ErasureStatus;
  subject: SubjectKind;
  source: 'api' | 'sdk';
  created_at: string;
  completed_at: string | null;
  counts: ErasureCounts;
  error: string | null;
}

export const ErasureAcceptedBody = t.Object({
  id: t.String({ description: 'the request id; a repeat of a pending request answers the same id' }),
  status: t.Union([t.Literal('pending'), t.Literal('completed'), t.Literal('failed')]),
});

export const ErasureViewBody = t.Object({
  id: t.String(),
  status: t.Union([t.Literal('pending'), t.Literal('completed'), t.Literal('failed')]),
  subject: t.Union(SUBJECT_KINDS.map((kind) => t.Literal(kind)), { description: 'the kind of subject; the value is never kept' }),
  source: t.Union([t.Literal('api'), t.Literal('sdk')]),
  created_at: t.String(),
  completed_at: t.Union([t.String(), t.Null()]),
  counts: t.Record(t.String(), t.Integer({ minimum: 0 }), { description: 'rows deleted or anonymised per table, so far' }),
  error: t.Union([t.String(), t.Null()]),
});
