import { t } from 'elysia';
import { CursorQuery, PageOf } from '../http/pagination';
import { Currency } from '../settings/settings.model';
import { DAY_ERROR } from '../shared/timestamp';

export const MAX_RATES = 5000;
/** Bounds that keep a rate meaningful as a decimal: any real pair of currencies falls well inside. */
export const MIN_RATE = 1e-12;
export const MAX_RATE = 1e12;

const Day = t.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', error: DAY_ERROR, description: 'the day the rate holds from (YYYY-MM-DD), until the next day with a rate' });

/** One rate: units of the reporting currency per unit of `currency` (docs/reports.md, "Exchange rates"). */
export const FxRate = t.Object(
  {
    day: Day,
    currency: Currency('the currency converted from'),
    rate: t.Number({ minimum: MIN_RATE, maximum: MAX_RATE, error: `must be a number from ${MIN_RATE} to ${MAX_RATE}`, description: 'units of the reporting currency per unit of currency' }),
  },
  { additionalProperties: false },
);
export type FxRate = typeof FxRate.static;

export const PutFxRatesBody = t.Object({ rates: t.Array(FxRate, { minItems: 1, maxItems: MAX_RATES }) }, { additionalProperties: false });
export type PutFxRatesBody = typeof PutFxRatesBody.static;

export const PutFxRatesAnswer = t.Object({
  ok: t.Boolean(),
  upserted: t.Integer({ minimum: 0, description: 'rates written, on currency plus day; a currency-day named twice counts once' }),
});
export interface PutFxRatesAnswer {
  ok: true;
  upserted: number;
}

/** `from` and `to` arrive as text and are checked by the service, so each error names its field. */
export const ListFxRatesQuery = t.Object({
  currency: t.Optional(t.String({ maxLength: 3, description: 'only this currency' })),
  from: t.Optional(t.String({ maxLength: 10, description: 'first day, YYYY-MM-DD, included' })),
  to: t.Optional(t.String({ maxLength: 10, description: 'last day, YYYY-MM-DD, included' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
  cursor: CursorQuery,
});
export type ListFxRatesQuery = typeof ListFxRatesQuery.static;
export const DEFAULT_LIST_LIMIT = 100;

export const FxRateRow = t.Object({
  day: t.String(),
  currency: t.String(),
  rate: t.Number(),
  quote: t.String({ description: 'the reporting currency the rate is in: the one when it was written' }),
  updated_at: t.String(),
});
export type FxRateRow = typeof FxRateRow.static;
export const ListFxRatesAnswer = PageOf(FxRateRow, 'newest day first, then by currency');
