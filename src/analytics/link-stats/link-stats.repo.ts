/**
 * The SQL of one link's analytics, read from the DuckDB mirror (docs/dashboard.md, "Link page").
 * Clicks count as every report counts them: not dropped (bot, invalid, blocked). Installs and
 * conversions are those whose click id is one of the link's clicks. Every value is a parameter;
 * the local-day and local-hour expressions are built from numbers worked out in zone-days.ts.
 */
import type { Mirror } from '../mirror/mirror';
import { CLICK_DEVICE_SQL } from '../breakdown/breakdown-sql';
import { localBucketSql, localDaySql, type ZoneWindow } from '../reporting/zone-days';

type Reads = Pick<Mirror, 'query'>;

export interface LinkStatsWindow {
  orgId: string;
  linkId: string;
  /** The by-day days in the reporting zone; every figure covers them. */
  window: ZoneWindow;
  /** The first local hour of the by-hour series, as hours since 1970-01-01 00:00 local time. */
  firstHour: number;
}

/** The dimensions one statement groups the link's clicks by. */
export const CLICK_DIMENSIONS = ['day', 'hour', 'country', 'os', 'device', 'referrer', 'landing'] as const;
export type ClickDimension = (typeof CLICK_DIMENSIONS)[number];

export interface ClickGroupRow {
  dimension: ClickDimension;
  /** A day or an hour as a number (text), or the value; null when the click did not say. */
  key: string | null;
  clicks: number;
}

export interface RouteRow {
  rule_index: number | null;
  rule_name: string | null;
  action: string | null;
  variant_index: number | null;
  clicks: number;
}

export interface OutcomeRow {
  day: number;
  /** null for an install. */
  event_name: string | null;
  currency: string | null;
  count: number;
  value: number;
}

/** The scheme's host of a referrer URL, lower-cased; null without one. */
const REFERRER_HOST = `nullif(lower(regexp_extract(k.referer, '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)', 1)), '')`;
/** Where the click was sent, without its query and fragment (which carry the click id). */
const LANDING = `nullif(regexp_replace(k.next_hop_url, '[?#].*$', ''), '')`;

const EXPRESSIONS: Record<Exclude<ClickDimension, 'day' | 'hour'>, string> = {
  country: 'k.country',
  os: 'k.os_family',
  device: CLICK_DEVICE_SQL,
  referrer: REFERRER_HOST,
  landing: LANDING,
};

function bounds(input: LinkStatsWindow) {
  return [input.orgId, input.linkId, input.window.start.toISOString(), input.window.end.toISOString()];
}
const CLICKS_WHERE = `k.org_id = $1 AND k.link_id = $2 AND k.drop_reason IS NULL
     AND k.created_at >= CAST($3 AS TIMESTAMPTZ) AND k.created_at < CAST($4 AS TIMESTAMPTZ)`;

/** The link's clicks grouped by each dimension, in one statement. */
export async function selectClickGroups(mirror: Reads, input: LinkStatsWindow): Promise<ClickGroupRow[]> {
  const day = localDaySql('k.created_at', input.window.intervals);
  const hour = localBucketSql('k.created_at', input.window.intervals, 3600);
  const branches = [
    `SELECT 'day' AS dimension, CAST(day AS VARCHAR) AS key, count(*) AS clicks FROM k GROUP BY day`,
    `SELECT 'hour', CAST(hour AS VARCHAR), count(*) FROM k WHERE hour >= CAST($5 AS INTEGER) GROUP BY hour`,
    ...Object.keys(EXPRESSIONS).map((name) => `SELECT '${name}', ${name}, count(*) FROM k GROUP BY ${name}`),
  ];
  const rows = await mirror.query<{ dimension: ClickDimension; key: string | null; clicks: bigint | number }>(
    `WITH k AS (
  SELECT ${day} AS day, ${hour} AS hour, ${Object.entries(EXPRESSIONS).map(([name, sql]) => `${sql} AS ${name}`).join(', ')}
    FROM clicks k
   WHERE ${CLICKS_WHERE}
)
${branches.join('\nUNION ALL\n')}`,
    [...bounds(input), input.firstHour],
  );
  return rows.map((row) => ({ dimension: row.dimension, key: row.key === null ? null : String(row.key), clicks: Number(row.clicks) }));
}

/** The link's clicks by the smart-link decision each records (`route`; null for /c clicks). */
export async function selectRoutes(mirror: Reads, input: LinkStatsWindow): Promise<RouteRow[]> {
  const rows = await mirror.query<Record<string, unknown>>(
    `SELECT TRY_CAST(json_extract_string(k.route, '$.rule_index') AS INTEGER) AS rule_index,
            json_extract_string(k.route, '$.rule_name') AS rule_name,
            json_extract_string(k.route, '$.action') AS action,
            TRY_CAST(json_extract_string(k.route, '$.variant_index') AS INTEGER) AS variant_index,
            count(*) AS clicks
       FROM clicks k
      WHERE ${CLICKS_WHERE} AND k.route IS NOT NULL
      GROUP BY 1, 2, 3, 4
      ORDER BY clicks DESC, rule_index NULLS LAST, variant_index NULLS LAST`,
    bounds(input),
  );
  const integer = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return rows.map((row) => ({
    rule_index: integer(row.rule_index),
    rule_name: (row.rule_name as string | null) ?? null,
    action: (row.action as string | null) ?? null,
    variant_index: integer(row.variant_index),
    clicks: Number(row.clicks),
  }));
}

/**
 * Installs and conversions of the link's clicks, by their own local day (an install in the window
 * from a click before it counts), conversions also by event and currency.
 */
export async function selectOutcomes(mirror: Reads, input: LinkStatsWindow): Promise<OutcomeRow[]> {
  const installDay = localDaySql('i.installed_at', input.window.intervals);
  const conversionDay = localDaySql('v.created_at', input.window.intervals);
  const rows = await mirror.query<Record<string, unknown>>(
    `SELECT ${installDay} AS day, CAST(NULL AS VARCHAR) AS event_name, CAST(NULL AS VARCHAR) AS currency, count(*) AS count, CAST(0 AS DOUBLE) AS value
       FROM installs i JOIN clicks k ON k.id = i.click_id AND k.org_id = $1 AND k.link_id = $2
      WHERE i.org_id = $1 AND i.installed_at >= CAST($3 AS TIMESTAMPTZ) AND i.installed_at < CAST($4 AS TIMESTAMPTZ)
      GROUP BY 1
     UNION ALL
     SELECT ${conversionDay}, v.event_name, v.currency, count(*), CAST(coalesce(sum(v.value), 0) AS DOUBLE)
       FROM conversions v JOIN clicks k ON k.id = v.click_id AND k.org_id = $1 AND k.link_id = $2
      WHERE v.org_id = $1 AND v.created_at >= CAST($3 AS TIMESTAMPTZ) AND v.created_at < CAST($4 AS TIMESTAMPTZ)
      GROUP BY 1, 2, 3`,
    bounds(input),
  );
  return rows.map((row) => ({
    day: Number(row.day),
    event_name: (row.event_name as string | null) ?? null,
    currency: (row.currency as string | null) ?? null,
    count: Number(row.count),
    value: Number(row.value),
  }));
}
