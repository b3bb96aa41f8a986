import { REVENUE_EVENTS } from '../analytics/pivot';
import { assertIdentifier, type Queryable } from '../db/db';
import type { KeptRange } from './kept-range';

/**
 * Adds a partition's rows in [lower, upper) to retained_totals before retention deletes them
 * (sql/0120_retention.sql): what the pivot counts of them, per organization, campaign, quarter
 * hour and currency. A quarter hour already there is added to, so a late row summed in a later
 * pass (or the next batch of the same pass) joins its bucket.
 */

const QUARTER_HOUR = (column: string) => `to_timestamp(floor(extract(epoch FROM ${column}) / 900) * 900)`;

const UPSERT = `ON CONFLICT (id) DO UPDATE SET count = retained_totals.count + excluded.count, value = retained_totals.value + excluded.value`;

/** Clicks no ingestion step dropped, by their click time: what the pivot's clicks column counts. */
export async function keepClicks(tx: Queryable, { partition, lower, upper }: KeptRange): Promise<void> {
  await tx.query(
    `INSERT INTO retained_totals (id, org_id, source, campaign_id, bucket, currency, count, value)
     SELECT concat_ws('|', 'clicks', org_id, coalesce(campaign_id, ''), extract(epoch FROM bucket)::bigint, ''),
            org_id, 'clicks', campaign_id, bucket, NULL, count(*), 0
       FROM (SELECT org_id, campaign_id, ${QUARTER_HOUR('created_at')} AS bucket
               FROM ${assertIdentifier(partition)}
              WHERE id >= $1 AND id < $2 AND drop_reason IS NULL) c
      GROUP BY org_id, campaign_id, bucket
     ${UPSERT}`,
    [lower, upper],
  );
}

/** Revenue events by the time they occurred and the campaign of their install, as the pivot's revenue. */
export async function keepRevenue(tx: Queryable, { partition, lower, upper }: KeptRange): Promise<void> {
  await tx.query(
    `INSERT INTO retained_totals (id, org_id, source, campaign_id, bucket, currency, count, value)
     SELECT concat_ws('|', 'revenue', org_id, coalesce(campaign_id, ''), extract(epoch FROM bucket)::bigint, coalesce(currency, '')),
            org_id, 'revenue', campaign_id, bucket, currency, count(*), coalesce(sum(value), 0)
       FROM (SELECT e.org_id, i.campaign_id, e.currency, e.value, ${QUARTER_HOUR('e.occurred_at')} AS bucket
               FROM ${assertIdentifier(partition)} e
               LEFT JOIN installs i ON i.install_key = e.install_key AND i.org_id = e.org_id
              WHERE e.id >= $1 AND e.id < $2 AND e.name = ANY($3::text[])) r
      GROUP BY org_id, campaign_id, bucket, currency
     ${UPSERT}`,
    [lower, upper, [...REVENUE_EVENTS]],
  );
}
