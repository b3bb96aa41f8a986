import type { Queryable } from '../../db/db';

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
