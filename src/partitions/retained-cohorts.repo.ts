import { SERVER_EVENTS } from '../analytics/cohorts/cohort-sql';
import { MAX_COHORT_DAY } from '../analytics/cohorts/cohorts.model';
import { REVENUE_EVENTS } from '../analytics/pivot';
import { assertIdentifier, type Queryable } from '../db/db';
import type { KeptRange } from './kept-range';

/**
 * Adds what the cohort report counts of a range of events to retained_cohorts before retention
 * removes them (sql/0121_retained_cohorts.sql; docs/reports.md, "Cohorts past retention"): per
 * organization, install day, cohort day and every dimension of the install the report groups or
 * filters by. Days are local days of the organization's time zone as it is when the rows go.
 */

/** The zone of each organization with rows in the range, looked up once per statement (an unknown one reads as UTC). */
const zones = (partition: string) => `zones AS MATERIALIZED (
  SELECT o.id AS org_id, svc_known_zone(o.timezone) AS zone
    FROM organizations o
   WHERE o.id IN (SELECT e.org_id FROM ${assertIdentifier(partition)} e WHERE e.id >= $1 AND e.id < $2)
)`;

const localDay = (column: string) => `((${column} AT TIME ZONE z.zone)::date - DATE '1970-01-01')`;

/** The range's events of known installs ($1, $2: the keys), with their install's dimensions and days. */
const gone = (partition: string) => `gone AS (
  SELECT e.org_id, e.install_key, e.name, e.value, e.currency, e.device_id_hash AS event_device, z.zone,
         i.app_id, i.device_id_hash, i.campaign_id, i.country, i.platform, i.attribution_method, i.is_reattribution,
         ${localDay('i.installed_at')} AS install_day,
         ${localDay('e.occurred_at')} - ${localDay('i.installed_at')} AS cohort_day
    FROM ${assertIdentifier(partition)} e
    JOIN installs i ON i.install_key = e.install_key AND i.org_id = e.org_id
    JOIN zones z ON z.org_id = e.org_id
   WHERE e.id >= $1 AND e.id < $2
)`;

const COLUMNS = 'id, org_id, source, install_day, cohort_day, campaign_id, app_id, country, platform, attribution_method, is_reattribution, currency, count, value';
const DIMENSIONS = 'install_day, cohort_day, campaign_id, app_id, country, platform, attribution_method, is_reattribution';
const OF_GONE = DIMENSIONS.split(', ').map((column) => `g.${column}`).join(', ');
const rowId = (source: string, currency: string) =>
  `concat_ws('|', ${source}, org_id, install_day, cohort_day, coalesce(campaign_id, ''), app_id, coalesce(country, ''), platform, attribution_method, is_reattribution, ${currency})`;

/** Revenue events by cohort day and currency: the cohort report's revenue through day N adds them up. */
export async function keepCohortRevenue(tx: Queryable, { partition, lower, upper }: KeptRange): Promise<void> {
  await tx.query(
    `WITH ${zones(partition)}, ${gone(partition)}
     INSERT INTO retained_cohorts (${COLUMNS})
     SELECT ${rowId("'revenue'", "coalesce(currency, '')")}, org_id, 'revenue', ${DIMENSIONS}, currency, count(*), sum(value)
       FROM gone
      WHERE name = ANY($3::text[]) AND value IS NOT NULL AND cohort_day BETWEEN 0 AND $4
      GROUP BY org_id, ${DIMENSIONS}, currency
     ON CONFLICT (id) DO UPDATE SET count = retained_cohorts.count + excluded.count, value = retained_cohorts.value + excluded.value`,
    [lower, upper, [...REVENUE_EVENTS], MAX_COHORT_DAY],
  );
}

/**
 * Installs active on a cohort day, for either activity the report can ask for. A count of
 * installs cannot be summed from two parts that share one, so an install counts here when the
 * last of its events of that day (and kind) goes: if another is left anywhere in `events`
 * (another partition, a later batch, a later day of keys), the report still counts the install
 * from that event, and whichever pass removes the last one counts it here. Each install is
 * then counted once per cohort day, from the rows left or from here, never both (docs/reports.md,
 * "Cohorts past retention", lists what can still count one twice: an event of that day stored
 * after the last one went, above all).
 * The other events are found on the (app, device, time) index, under the install's device and
 * the devices its removed events name (an app reinstalled keeps its install id, not its device).
 */
export async function keepCohortActivity(tx: Queryable, { partition, lower, upper }: KeptRange): Promise<void> {
  const isActivity = (alias: string, source: string) =>
    `CASE WHEN ${source} = 'activity_sessions' THEN ${alias}.name = 'session_start' ELSE ${alias}.name <> ALL($3::text[]) END`;
  await tx.query(
    `WITH ${zones(partition)}, ${gone(partition)},
     active AS (
       SELECT k.source, g.org_id, g.install_key, g.zone, ${OF_GONE},
              array_agg(DISTINCT g.event_device) FILTER (WHERE g.event_device IS NOT NULL) || g.device_id_hash AS devices
         FROM gone g
         JOIN (VALUES ('activity_any'), ('activity_sessions')) k (source) ON ${isActivity('g', 'k.source')}
        WHERE g.cohort_day BETWEEN 0 AND $4
        GROUP BY k.source, g.org_id, g.install_key, g.device_id_hash, g.zone, ${OF_GONE}
     )
     INSERT INTO retained_cohorts (${COLUMNS})
     SELECT ${rowId('source', "''")}, org_id, source, ${DIMENSIONS}, NULL, count(*), 0
       FROM active a
      WHERE NOT EXISTS (
        SELECT 1 FROM events r
         WHERE r.org_id = a.org_id AND r.app_id = a.app_id AND r.device_id_hash = ANY(a.devices) AND r.install_key = a.install_key
           AND r.occurred_at >= to_timestamp((a.install_day + a.cohort_day) * 86400.0 - 54000)
           AND r.occurred_at < to_timestamp((a.install_day + a.cohort_day + 1) * 86400.0 + 54000)
           AND (r.occurred_at AT TIME ZONE a.zone)::date - DATE '1970-01-01' = a.install_day + a.cohort_day
           AND ${isActivity('r', 'a.source')}
           AND NOT (r.tableoid = $5::regclass AND r.id >= $1 AND r.id < $2))
      GROUP BY org_id, source, ${DIMENSIONS}
     ON CONFLICT (id) DO UPDATE SET count = retained_cohorts.count + excluded.count`,
    [lower, upper, [...SERVER_EVENTS], MAX_COHORT_DAY, assertIdentifier(partition)],
  );
}
