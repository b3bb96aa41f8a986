import { recordAudit, type Actor } from '../auth/audit';
import type { Db } from '../db/db';
import { notFound, validationError } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { CURRENCY_ERROR, CURRENCY_PATTERN } from '../settings/settings.model';
import { newId } from '../shared/ids';
import { parseDay } from '../shared/timestamp';
import { DEFAULT_LIST_LIMIT, type FxRate, type FxRateRow, type ListFxRatesQuery, type PutFxRatesAnswer } from './fx-rates.model';
import { lockReportingCurrency, RATES_KEYSET, selectRates, upsertRates, type RateUpsert } from './fx-rates.repo';

const CURRENCY = new RegExp(CURRENCY_PATTERN);

/**
 * Upserts exchange rates on currency plus day, quoted in the organization's reporting currency:
 * the whole batch is checked first (one bad rate writes nothing), and a currency-day named twice
 * counts once, the later rate winning, as in the cost import (docs/reports.md, "Exchange rates").
 */
export async function putFxRates({ db }: { db: Db }, actor: Actor, rates: readonly FxRate[]): Promise<PutFxRatesAnswer> {
  const problems: Record<string, string[]> = {};
  rates.forEach((rate, index) => {
    const day = parseDay(rate.day);
    if ('error' in day) problems[`rates.${index}.day`] = [day.error];
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return db.transaction(async (tx) => {
    const quote = await lockReportingCurrency(tx, actor.orgId);
    if (quote === undefined) throw notFound('organization not found');
    rates.forEach((rate, index) => {
      if (rate.currency === quote) problems[`rates.${index}.currency`] = [`is the reporting currency (${quote}): its amounts need no rate`];
    });
    if (Object.keys(problems).length > 0) throw validationError(problems);
    const upserts = new Map<string, RateUpsert>();
    for (const rate of rates) {
      const key = `${rate.currency}|${rate.day}`;
      upserts.delete(key);
      upserts.set(key, { id: newId(), day: rate.day, currency: rate.currency, rate: rate.rate });
    }
    const upserted = await upsertRates(tx, actor.orgId, quote, [...upserts.values()]);
    const currencies = [...new Set(rates.map((rate) => rate.currency))].sort();
    await recordAudit(tx, actor, { action: 'upsert', entity: 'fx_rate', detail: { rates: rates.length, upserted, quote, currencies } });
    return { ok: true, upserted };
  });
}

/** The organization's rates, newest day first, filtered by currency and day range; a bad filter is a 400 naming it. */
export async function listFxRates({ db }: { db: Db }, orgId: string, query: ListFxRatesQuery): Promise<Page<FxRateRow>> {
  const problems: Record<string, string[]> = {};
  if (query.currency !== undefined && !CURRENCY.test(query.currency)) problems.currency = [CURRENCY_ERROR];
  const day = (field: 'from' | 'to') => {
    if (query[field] === undefined) return null;
    const parsed = parseDay(query[field]);
    if ('error' in parsed) problems[field] = [parsed.error];
    return 'value' in parsed ? parsed.value : null;
  };
  const from = day('from');
  const to = day('to');
  if (from !== null && to !== null && to < from) problems.to = ['must be the same day as from or later'];
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return readPage({
    keyset: RATES_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_LIST_LIMIT,
    fetch: (page) => selectRates(db, orgId, { currency: query.currency ?? null, from, to }, page),
    keyOf: (row) => [row.day, row.currency],
    view: (row) => ({ day: row.day, currency: row.currency, rate: Number(row.rate), quote: row.quote, updated_at: new Date(row.updated_at).toISOString() }),
  });
}
