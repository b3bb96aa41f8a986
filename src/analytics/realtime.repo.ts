import type { Queryable } from '../db/db';
import type { MinuteCount } from '../tracking/counts/click-counts.repo';

const minuteCounts = (rows: { minute: Date; count: number }[]): MinuteCount[] => rows.map((row) => ({ minute: row.minute.getTime(), count: Number(row.count) }));

export async function selectClickCounts(db: Queryable, orgId: string, since: Date): Promise<MinuteCount[]> {
  return minuteCounts(
    await db.query<{ minute: Date; count: number }>(
      'SELECT minute, clicks AS count FROM realtime_clicks WHERE org_id = $1 AND minute >= $2::timestamptz',
      [orgId, since.toISOString()],
    ),
  );
}

/**
 * Installs and conversions per minute, as stored: both are committed before their calls are
 * answered, so the database already agrees across nodes. date_bin keeps minutes whatever the
 * session's time zone.
 */
export async function selectStoredCounts(db: Queryable, orgId: string, since: Date): Promise<{ installs: MinuteCount[]; conversions: MinuteCount[] }> {
  const rows = await db.query<{ kind: 'installs' | 'conversions'; minute: Date; count: number }>(
    `SELECT 'installs' AS kind, date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS minute, count(*) AS count
       FROM installs WHERE org_id = $1 AND created_at >= $2::timestamptz GROUP BY 2
     UNION ALL
     SELECT 'conversions', date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'), count(*)
       FROM conversions WHERE org_id = $1 AND created_at >= $2::timestamptz GROUP BY 2`,
    [orgId, since.toISOString()],
  );
  return {
    installs: minuteCounts(rows.filter((row) => row.kind === 'installs')),
    conversions: minuteCounts(rows.filter((row) => row.kind === 'conversions')),
  };
}
