/**
 * Postgres tables copied into the DuckDB analytics mirror, under the same names. Each needs an
 * `id` primary key, `_txid xid8 NOT NULL DEFAULT pg_current_xact_id()`, `_seq bigserial`, an
 * index on (_txid, _seq), and the svc_mirror_touch() trigger if its rows are ever updated
 * (sql/0002_mirror_touch.sql). A module adding a mirrored table appends its name here.
 */
export const MIRRORED_TABLES: readonly string[] = [
  'clicks',
  'impressions',
  'conversions',
  'costs',
  'installs',
  'events',
  'subscriptions',
  'skan_postbacks',
  'campaigns',
  'fx_rates',
  // What the reports count of the days retention dropped (sql/0120_retention.sql, sql/0121_retained_cohorts.sql).
  'retained_totals',
  'retained_cohorts',
  // Last: the rows deleted from the tables above, applied after each round (mirror-deletes.ts).
  'mirror_deletions',
];
