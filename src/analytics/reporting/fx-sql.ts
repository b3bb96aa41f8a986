/**
 * Amounts in the organization's reporting currency (docs/reports.md, "Exchange rates"), as SQL
 * that runs unchanged on DuckDB and Postgres. A rate holds from its day until the next day with a
 * rate for that currency; an amount with no rate on or before its day is not converted: it is
 * reported apart, by currency, so a total is never silently wrong. An amount without a currency
 * is in the reporting currency (what the reports summed before there were rates).
 */

/**
 * The CTE `rates`: `currency`, `from_day`, `to_day` (days since 1970-01-01, `to_day` excluded) and
 * `rate`, for the organization in the SQL parameter `orgParam` (`$1`), of the rates quoted in its
 * reporting currency `currencyParam` (rates written under an earlier reporting currency stay out).
 */
export function ratesCte(orgParam: string, currencyParam: string): string {
  return `rates AS (
  SELECT currency,
         CAST(day - DATE '1970-01-01' AS INTEGER) AS from_day,
         coalesce(CAST(lead(day) OVER (PARTITION BY currency ORDER BY day) - DATE '1970-01-01' AS INTEGER), 2147483647) AS to_day,
         CAST(rate AS DOUBLE PRECISION) AS rate
    FROM fx_rates
   WHERE org_id = ${orgParam} AND quote = ${currencyParam}
)`;
}

/** The currency an amount is in: its own, or the reporting currency (`currencyParam`) without one. */
export function amountCurrencySql(column: string, currencyParam: string): string {
  return `coalesce(${column}, ${currencyParam})`;
}

/**
 * For rows of `alias` that have an integer `day` and a `currency`: the join to the rate of that
 * day, and the amount converted (NULL when no rate applies, which is what "unconverted" means).
 * Join after grouping, on (day, currency) groups, so the range join sees few rows.
 */
export function conversion(alias: string, currencyParam: string): { join: string; converted: (amount: string) => string; unconverted: string } {
  const rate = `${alias}_rate`;
  return {
    join: `LEFT JOIN rates ${rate} ON ${rate}.currency = ${alias}.currency AND ${alias}.day >= ${rate}.from_day AND ${alias}.day < ${rate}.to_day`,
    converted: (amount) => `CASE WHEN ${alias}.currency = ${currencyParam} THEN ${amount} ELSE ${amount} * ${rate}.rate END`,
    unconverted: `(${alias}.currency <> ${currencyParam} AND ${rate}.rate IS NULL)`,
  };
}

/** Unconverted sums by currency, from rows `{currency, amount}`: zero sums left out, 6 decimals. */
export function unconvertedByCurrency(rows: Iterable<{ currency: unknown; amount: unknown }>): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const row of rows) {
    const amount = Number(row.amount);
    if (!Number.isFinite(amount) || amount === 0) continue;
    const currency = String(row.currency);
    sums[currency] = (sums[currency] ?? 0) + amount;
  }
  for (const currency of Object.keys(sums)) {
    sums[currency] = Math.round(sums[currency]! * 1e6) / 1e6;
    if (sums[currency] === 0) delete sums[currency];
  }
  return Object.fromEntries(Object.entries(sums).sort(([a], [b]) => a.localeCompare(b)));
}
