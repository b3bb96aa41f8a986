import type { Queryable } from '../db/db';

/** One organization's count in one minute; `minute` is the minute's start in epoch milliseconds. */
export interface MinuteCount {
  minute: number;
  count: number;
}

/** Counts keyed `${orgId}\t${minute}`, as ClickCounter keeps them. */
export type CountsByOrgMinute = ReadonlyMap<string, number>;

export const orgMinuteKey = (orgId: string, minute: number) => `${orgId}\t${minute}`;

/**
 * Adds a node's counts to the shared rows. Rows go in key order, so two nodes adding to the
 * same rows lock them in the same order and never deadlock.
 */
export async function addClickCounts(db: Queryable, counts: CountsByOrgMinute): Promise<void> {
  const entries = [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const orgs: string[] = [];
  const minutes: string[] = [];
  const clicks: string[] = [];
  for (const [key, count] of entries) {
    const tab = key.indexOf('\t');
    orgs.push(key.slice(0, tab));
    minutes.push(new Date(Number(key.slice(tab + 1))).toISOString());
    clicks.push(String(count));
  }
  await db.query(
    `INSERT INTO realtime_clicks (org_id, minute, clicks)
     SELECT o, m::timestamptz, c::bigint FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(o, m, c, n) ORDER BY n
     ON CONFLICT (org_id, minute) DO UPDATE SET clicks = realtime_clicks.clicks + excluded.clicks`,
    [orgs, minutes, clicks],
  );
}

/** Rows past any window anyone reads; any node may run it. */
export async function pruneClickCounts(db: Queryable, before: Date): Promise<void> {
  await db.query('DELETE FROM realtime_clicks WHERE minute < $1::timestamptz', [before.toISOString()]);
}

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
