import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';

export interface RateUpsert {
  id: string;
  day: string;
  currency: string;
  rate: number;
}

/** The reporting currency, the row shared-locked: a settings change waits until the rates are in. */
export async function lockReportingCurrency(tx: Queryable, orgId: string): Promise<string | undefined> {
  const [row] = await tx.query<{ currency: string }>('SELECT currency FROM organizations WHERE id = $1 FOR SHARE', [orgId]);
  return row?.currency;
}

/**
 * One statement for the whole batch: each currency-day inserted or replaced, quoted in `quote`.
 * The rates travel as one JSON parameter and reach `numeric` as the decimals sent.
 */
export async function upsertRates(tx: Queryable, orgId: string, quote: string, rates: readonly RateUpsert[]): Promise<number> {
  const written = await tx.query(
    `INSERT INTO fx_rates (id, org_id, day, currency, rate, quote)
     SELECT r.id, $1, r.day, r.currency, r.rate, $2
       FROM jsonb_to_recordset($3::text::jsonb) AS r(id text, day date, currency text, rate numeric)
     ON CONFLICT (org_id, currency, day) DO UPDATE SET rate = EXCLUDED.rate, quote = EXCLUDED.quote, updated_at = now()
     RETURNING id`,
    [orgId, quote, JSON.stringify(rates)],
  );
  return written.length;
}

export interface RateRow {
  day: string;
  currency: string;
  rate: unknown;
  quote: string;
  updated_at: Date;
}

/** Newest day first, then by currency: a day and a currency name one rate, so the cursor carries them. */
export const RATES_KEYSET: Keyset = {
  kind: 'values',
  list: 'fx-rates',
  columns: [
    { column: 'day', cast: 'date', direction: 'desc' },
    { column: 'currency', cast: 'text', direction: 'asc' },
  ],
};

/** The organization's rates, newest day first; null bounds and currency filter nothing. */
export function selectRates(
  db: Queryable,
  orgId: string,
  filter: { currency: string | null; from: string | null; to: string | null },
  page: PageRequest,
): Promise<RateRow[]> {
  const after = keysetCondition(RATES_KEYSET, page.after, 6);
  return db.query<RateRow>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, currency, rate, quote, updated_at FROM fx_rates
      WHERE org_id = $1 AND ($2::text IS NULL OR currency = $2)
        AND ($3::date IS NULL OR day >= $3::date) AND ($4::date IS NULL OR day <= $4::date)
        AND ${after.sql}
      ORDER BY ${keysetOrder(RATES_KEYSET)} LIMIT $5`,
    [orgId, filter.currency, filter.from, filter.to, page.limit, ...after.params],
  );
}
