import { t } from 'elysia';
import { Amount } from '../http/strict-body';

/** The spec's CostRow. `day` is checked against the calendar by the service as well. */
export const CostRow = t.Object(
  {
    campaign_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    campaign_external_id: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
    day: t.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', error: 'Expected a date as YYYY-MM-DD' }),
    spend: Amount(),
    currency: t.Optional(t.String({ pattern: '^[A-Za-z]{3}$', error: 'Expected exactly 3 letters (ISO 4217)' })),
    impressions: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
export type CostRow = typeof CostRow.static;

export const CostsBody = t.Object({ rows: t.Array(CostRow, { minItems: 1, maxItems: 5000 }) }, { additionalProperties: false });
export type CostsBody = typeof CostsBody.static;

export interface CostsResult {
  ok: true;
  upserted: number;
}

export const CostsResultBody = t.Object({ ok: t.Boolean(), upserted: t.Integer({ minimum: 0, description: 'rows upserted; rows of unknown campaigns are skipped' }) });

export const DEFAULT_CURRENCY = 'USD';
