/**
 * The cohort report's one statement (docs/reports.md, "Cohorts"), as SQL that runs unchanged on
 * the DuckDB mirror and on Postgres (bench:cohorts runs it on both). It answers per group and
 * install day, never per install: the reach of a cohort day, the totals and the ratios are the
 * service's (cohorts.service.ts), from these sums. Events meet their installs on the integer
 * `install_key` the store gives both (sql/0114_install_keys.sql), never on the text id: that join
 * over millions of events is most of the report's work. What retention removed of the events is
 * read from retained_cohorts (`kept`), whose rows carry the dimensions of their installs: they
 * add to the same facts, each event or active install counted there or in `events`, never both
 * (docs/reports.md, "Cohorts past retention").
 */
import { REVENUE_EVENTS } from '../pivot';
import { amountCurrencySql, conversion, ratesCte } from '../reporting/fx-sql';
import { dateDaySql, localDaySql, zoneDayStart, type ZoneWindow } from '../reporting/zone-days';
import { ORGANIC, type CohortGroup, type CohortQuery } from './cohorts.model';

/**
 * Events the service records itself rather than the app: an uninstall mark (docs/uninstalls.md)
 * and the store notifications' transitions (src/subscriptions/state-machine.ts). They are not
 * activity; their values still count as revenue.
 */
export const SERVER_EVENTS = [
  'uninstall', 'subscription_converted', 'subscription_renewed', 'subscription_recovered', 'subscription_refunded',
  'subscription_refund_reversed', 'subscription_cancelled', 'subscription_reactivated', 'subscription_grace_period',
  'subscription_billing_retry', 'subscription_expired', 'subscription_revoked', 'subscription_paused',
] as const;

/** The rows of retained_cohorts (src/partitions/retained-cohorts.repo.ts) each activity reads. */
const ACTIVITY_SOURCES: Record<CohortQuery['activity'], string> = { any: 'activity_any', sessions: 'activity_sessions' };

/** What a row of the statement holds, by `kind`; `v1` and `v2` as noted. */
export type CohortFactKind =
  /** v1 installs counted, v2 re-attributed installs among the install day's. */
  | 'cohort'
  /** by currency: v1 spend converted (null: no rate), v2 spend in no rate. */
  | 'spend'
  /** by cohort day n: v1 installs active on day n. */
  | 'retained'
  /** by cohort day n and currency: v1 revenue through day n converted, v2 the unconverted rest. */
  | 'revenue'
  /** by cohort day n: v1 installs marked uninstalled by day n. */
  | 'uninstalled';

export interface CohortFact {
  kind: CohortFactKind;
  /** The first and second grouping other than `day`, in the query's order; null where none. */
  k1: string | null;
  k2: string | null;
  /** The install day (a cost's day), days since 1970-01-01 in the reporting zone. */
  install_day: number;
  n: number | null;
  currency: string | null;
  v1: number | null;
  v2: number | null;
}

/** The grouping expressions over installs `i` and their campaign `c`: fixed SQL chosen by a checked enum. */
const INSTALL_KEYS: Record<Exclude<CohortGroup, 'day'>, string> = {
  campaign: 'i.campaign_id',
  partner: `CASE WHEN i.campaign_id IS NULL THEN '${ORGANIC}' ELSE c.partner END`,
  country: 'i.country',
  platform: 'i.platform',
  app: 'i.app_id',
  method: 'i.attribution_method',
};

/** The same groupings over costs `co` and their campaign `c`, where a cost row has one (docs/reports.md, "Spend"). */
const COST_KEYS: Partial<Record<CohortGroup, string>> = { campaign: 'co.campaign_id', partner: 'c.partner', app: 'c.app_id' };

/** Groupings and filters costs can be split by: costs are per campaign and day. */
export function spendSplits(groupBy: readonly CohortGroup[]): boolean {
  return groupBy.every((group) => group === 'day' || COST_KEYS[group] !== undefined);
}
export function spendFilters(query: Pick<CohortQuery, 'country' | 'platform'>): boolean {
  return query.country === null && query.platform === null;
}

export interface CohortSqlContext {
  orgId: string;
  /** The reporting currency. */
  currency: string;
  /** The install days in the reporting zone, its offsets reaching past `to` by the largest day asked. */
  window: ZoneWindow;
}

const REVENUE_LIST = `'${REVENUE_EVENTS.join("', '")}'`;
const SERVER_LIST = `'${SERVER_EVENTS.join("', '")}'`;
const NULL_TEXT = 'CAST(NULL AS VARCHAR)';
const NULL_INT = 'CAST(NULL AS INTEGER)';
const NULL_DOUBLE = 'CAST(NULL AS DOUBLE PRECISION)';
const double = (sql: string) => `CAST(${sql} AS DOUBLE PRECISION)`;
/** Days per mask word: 62 bits of a BIGINT, so no bit reaches the sign. */
const MASK_BITS = 62;

/** The statement and its parameters for a checked query; every value from input is a parameter. */
export function cohortSql(query: CohortQuery, context: CohortSqlContext): { sql: string; params: unknown[] } {
  const { window } = context;
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const org = param(context.orgId);
  const currency = param(context.currency);
  const start = param(window.start.toISOString());
  const end = param(window.end.toISOString());
  const maxDay = Math.max(...query.days);
  const eventsEnd = param(new Date(zoneDayStart(window.zone, window.toDay + 1 + maxDay)).toISOString());
  const day = (column: string) => localDaySql(column, window.intervals);

  const groups = query.groupBy.filter((group): group is Exclude<CohortGroup, 'day'> => group !== 'day');
  const installKey = (index: number) => (groups[index] ? INSTALL_KEYS[groups[index]!] : NULL_TEXT);
  const costKey = (index: number) => (groups[index] ? (COST_KEYS[groups[index]!] ?? NULL_TEXT) : NULL_TEXT);

  const installFilters: string[] = [];
  const costFilters: string[] = [];
  if (query.campaignId !== null) {
    const value = param(query.campaignId);
    installFilters.push(`i.campaign_id = ${value}`);
    costFilters.push(`co.campaign_id = ${value}`);
  }
  if (query.partner === ORGANIC) {
    installFilters.push('i.campaign_id IS NULL');
    costFilters.push('1 = 0');
  } else if (query.partner !== null) {
    const value = param(query.partner);
    installFilters.push(`c.partner = ${value}`);
    costFilters.push(`c.partner = ${value}`);
  }
  if (query.appId !== null) {
    const value = param(query.appId);
    installFilters.push(`i.app_id = ${value}`);
    costFilters.push(`c.app_id = ${value}`);
  }
  if (query.country !== null) installFilters.push(`i.country = ${param(query.country)}`);
  if (query.platform !== null) installFilters.push(`i.platform = ${param(query.platform)}`);
  const and = (filters: string[]) => filters.map((filter) => ` AND ${filter}`).join('');

  const asked = query.days.map((n) => `CAST(${param(n)} AS INTEGER)`);
  const askedList = asked.join(', ');
  // Which days an install was active on, as bits: grouped per install, never per event, so
  // the working memory is one row per install (MASK_BITS days to a BIGINT word). The events
  // carry only the install's key and day through the join and the grouping, its groups join
  // back after: narrower rows kept two DuckDB threads inside MIRROR_MEMORY_MB's 256 MiB.
  const wordOf = (index: number) => Math.floor(index / MASK_BITS);
  const bitOf = (index: number) => `CAST(${(1n << BigInt(index % MASK_BITS)).toString()} AS BIGINT)`;
  const words = Array.from({ length: wordOf(asked.length - 1) + 1 }, (_, word) => word);
  const masks = words
    .map((word) => {
      const cases = asked.map((value, index) => (wordOf(index) === word ? ` WHEN ${value} THEN ${bitOf(index)}` : '')).join('');
      return `bit_or(CASE n${cases} ELSE CAST(0 AS BIGINT) END) AS m${word}`;
    })
    .join(', ');
  const maskOfWord = words.length === 1 ? 'a.m0' : `CASE d.word ${words.map((word) => `WHEN ${word} THEN a.m${word}`).join(' ')} END`;
  const last = `CAST(${param(maxDay)} AS INTEGER)`;
  const active = query.activity === 'sessions' ? "e.name = 'session_start'" : `e.name NOT IN (${SERVER_LIST})`;
  const rate = conversion('r', currency);
  const costRate = conversion('s', currency);
  const eventDay = day('e.occurred_at');
  const [fromDay, toDay] = [param(window.fromDay), param(window.toDay)];

  // Costs are left out where a filter splits installs in a way costs are not split (country, platform).
  const withSpend = spendFilters(query);
  const [fromDate, toDate] = withSpend ? [param(query.from), param(query.to)] : [];
  const spend = withSpend
    ? `
spend AS (
  SELECT ${costKey(0)} AS k1, ${costKey(1)} AS k2, ${dateDaySql('co.day')} AS day, co.currency, sum(co.spend) AS amount
    FROM costs co
    LEFT JOIN campaigns c ON c.id = co.campaign_id AND c.org_id = ${org}
   WHERE co.org_id = ${org} AND co.day >= CAST(${fromDate} AS DATE) AND co.day <= CAST(${toDate} AS DATE)${and(costFilters)}
   GROUP BY 1, 2, 3, 4
),
spend_rated AS (
  SELECT s.k1, s.k2, s.day, s.currency, s.amount, ${costRate.converted('s.amount')} AS converted
    FROM spend s
    ${costRate.join}
),`
    : '';
  const spendFacts = withSpend
    ? `
UNION ALL
SELECT 'spend', k1, k2, day, ${NULL_INT}, currency, ${double('sum(converted)')}, ${double('sum(CASE WHEN converted IS NULL THEN amount END)')}
  FROM spend_rated
 GROUP BY k1, k2, day, currency`
    : '';

  const sql = `
WITH ${ratesCte(org, currency)},
cohort AS (
  SELECT i.install_key AS id, ${day('i.installed_at')} AS install_day, ${installKey(0)} AS k1, ${installKey(1)} AS k2,
         i.is_reattribution AS reattributed,
         ${day('i.uninstalled_at')} - ${day('i.installed_at')} AS uninstalled_day
    FROM installs i
    LEFT JOIN campaigns c ON c.id = i.campaign_id AND c.org_id = ${org}
   WHERE i.org_id = ${org} AND i.installed_at >= CAST(${start} AS TIMESTAMPTZ) AND i.installed_at < CAST(${end} AS TIMESTAMPTZ)${and(installFilters)}
),
counted AS (
  SELECT * FROM cohort${query.includeReattributions ? '' : ' WHERE NOT reattributed'}
),
asked (n, word, bit) AS (
  VALUES ${asked.map((value, index) => `(${value}, ${wordOf(index)}, ${bitOf(index)})`).join(', ')}
),
active_days AS (
  SELECT c.id, ${eventDay} - c.install_day AS n
    FROM events e
    JOIN counted c ON c.id = e.install_key
   WHERE e.org_id = ${org} AND e.occurred_at >= CAST(${start} AS TIMESTAMPTZ) AND e.occurred_at < CAST(${eventsEnd} AS TIMESTAMPTZ)
     AND ${active}
),
kept AS (
  SELECT i.source, i.install_day, i.cohort_day AS n, ${installKey(0)} AS k1, ${installKey(1)} AS k2, i.currency, i.count, i.value
    FROM retained_cohorts i
    LEFT JOIN campaigns c ON c.id = i.campaign_id AND c.org_id = ${org}
   WHERE i.org_id = ${org} AND i.install_day >= CAST(${fromDay} AS INTEGER) AND i.install_day <= CAST(${toDay} AS INTEGER)
     AND i.cohort_day <= ${last}${query.includeReattributions ? '' : ' AND NOT i.is_reattribution'}${and(installFilters)}
),
active_masks AS (
  SELECT id, ${masks}
    FROM active_days
   WHERE n IN (${askedList})
   GROUP BY id
),
active AS (
  SELECT c.k1, c.k2, c.install_day, m.*
    FROM active_masks m
    JOIN counted c ON c.id = m.id
),
revenue AS (
  SELECT c.k1, c.k2, c.install_day, ${eventDay} AS day, ${amountCurrencySql('e.currency', currency)} AS currency, sum(e.value) AS amount
    FROM events e
    JOIN counted c ON c.id = e.install_key
   WHERE e.org_id = ${org} AND e.occurred_at >= CAST(${start} AS TIMESTAMPTZ) AND e.occurred_at < CAST(${eventsEnd} AS TIMESTAMPTZ)
     AND e.name IN (${REVENUE_LIST}) AND e.value IS NOT NULL
     AND ${eventDay} - c.install_day BETWEEN 0 AND ${last}
   GROUP BY 1, 2, 3, 4, 5
  UNION ALL
  SELECT k1, k2, install_day, install_day + n, ${amountCurrencySql('currency', currency)}, sum(value)
    FROM kept
   WHERE source = 'revenue'
   GROUP BY 1, 2, 3, 4, 5
),
revenue_rated AS (
  SELECT r.k1, r.k2, r.install_day, r.day - r.install_day AS cohort_day, r.currency, r.amount, ${rate.converted('r.amount')} AS converted
    FROM revenue r
    ${rate.join}
),${spend}
revenue_through AS (
  SELECT rr.k1, rr.k2, rr.install_day, a.n, rr.currency,
         sum(rr.converted) AS converted, sum(CASE WHEN rr.converted IS NULL THEN rr.amount END) AS unconverted
    FROM revenue_rated rr
    JOIN asked a ON rr.cohort_day <= a.n
   GROUP BY 1, 2, 3, 4, 5
)
SELECT 'cohort' AS kind, k1, k2, install_day, ${NULL_INT} AS n, ${NULL_TEXT} AS currency,
       ${double(query.includeReattributions ? 'count(*)' : 'sum(CASE WHEN reattributed THEN 0 ELSE 1 END)')} AS v1,
       ${double('sum(CASE WHEN reattributed THEN 1 ELSE 0 END)')} AS v2
  FROM cohort
 GROUP BY k1, k2, install_day${spendFacts}
UNION ALL
SELECT 'retained', a.k1, a.k2, a.install_day, d.n, ${NULL_TEXT}, ${double('count(*)')}, ${NULL_DOUBLE}
  FROM active a
  JOIN asked d ON (${maskOfWord} & d.bit) <> 0
 GROUP BY a.k1, a.k2, a.install_day, d.n
UNION ALL
SELECT 'retained', k1, k2, install_day, n, ${NULL_TEXT}, ${double('sum(count)')}, ${NULL_DOUBLE}
  FROM kept
 WHERE source = '${ACTIVITY_SOURCES[query.activity]}' AND n IN (${askedList})
 GROUP BY k1, k2, install_day, n
UNION ALL
SELECT 'revenue', k1, k2, install_day, n, currency, ${double('converted')}, ${double('unconverted')}
  FROM revenue_through
UNION ALL
SELECT 'uninstalled', c.k1, c.k2, c.install_day, a.n, ${NULL_TEXT}, ${double('count(*)')}, ${NULL_DOUBLE}
  FROM counted c
  JOIN asked a ON c.uninstalled_day <= a.n
 GROUP BY c.k1, c.k2, c.install_day, a.n`;
  return { sql, params };
}
