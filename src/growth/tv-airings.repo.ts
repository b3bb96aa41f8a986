import type { Mirror } from '../analytics/mirror/mirror';
import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { CountRequest } from './spike';
import type { TvAiringView } from './tv-airings.model';

/** What attribution needs of a stored airing. */
export interface StoredAiring {
  id: string;
  aired_at: Date;
  window_min: number;
  region: string | null;
}

/** What attribution stores on an airing. */
export type AiringResult = Pick<TvAiringView, 'baseline_per_min' | 'window_count' | 'lift' | 'attributed'>;

/** An airing as stored: what the list shows, less the cost per lift worked out when read. */
export type NewAiring = Omit<TvAiringView, 'cost_per_lift'>;

export interface AiringRow extends Omit<NewAiring, 'aired_at'> {
  aired_at: Date;
}

/** Imports of one organization run one at a time: each sees the airings the one before stored. */
export async function lockOrgAirings(tx: Queryable, orgId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('tv_airings:' || $1, 0))`, [orgId]);
}

export function findAiringsBetween(tx: Queryable, orgId: string, from: Date, to: Date): Promise<StoredAiring[]> {
  return tx.query<StoredAiring>(
    `SELECT id, aired_at, window_min, region FROM tv_airings
      WHERE org_id = $1 AND aired_at >= $2::timestamptz AND aired_at < $3::timestamptz`,
    [orgId, from.toISOString(), to.toISOString()],
  );
}

/** The batch in one statement, unpacked from one JSON parameter. */
export async function insertAirings(tx: Queryable, orgId: string, airings: readonly NewAiring[]): Promise<void> {
  await tx.query(
    `INSERT INTO tv_airings (id, org_id, network, program, region, aired_at, window_min, spot_length_sec, cost, campaign_id,
       baseline_per_min, window_count, lift, attributed)
     SELECT r.id, $1, r.network, r.program, r.region, r.aired_at, r.window_min, r.spot_length_sec, r.cost, r.campaign_id,
       r.baseline_per_min, r.window_count, r.lift, r.attributed
       FROM json_to_recordset($2::json) AS r(id text, network text, program text, region text, aired_at timestamptz, window_min integer,
         spot_length_sec integer, cost numeric, campaign_id text, baseline_per_min double precision, window_count integer,
         lift double precision, attributed boolean)`,
    [orgId, JSON.stringify(airings)],
  );
}

/** New figures for airings stored earlier, when an imported airing now shares their spike or baseline. */
export async function updateAiringResults(tx: Queryable, orgId: string, results: readonly (AiringResult & { id: string })[]): Promise<void> {
  if (results.length === 0) return;
  await tx.query(
    `UPDATE tv_airings a SET baseline_per_min = r.baseline_per_min, window_count = r.window_count, lift = r.lift,
       attributed = r.attributed, updated_at = now()
       FROM json_to_recordset($2::json) AS r(id text, baseline_per_min double precision, window_count integer, lift double precision,
         attributed boolean)
      WHERE a.org_id = $1 AND a.id = r.id`,
    [orgId, JSON.stringify(results)],
  );
}

/** Latest airing first; the cursor names the last airing shown. */
export const AIRINGS_KEYSET: Keyset = { kind: 'anchor', list: 'tv-airings', table: 'tv_airings', columns: ['aired_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listAirings(db: Queryable, orgId: string, page: PageRequest): Promise<AiringRow[]> {
  const after = keysetCondition(AIRINGS_KEYSET, page.after, 3);
  return db.query<AiringRow>(
    `SELECT id, network, program, region, aired_at, window_min, spot_length_sec, cost, campaign_id, baseline_per_min, window_count,
       lift, attributed
       FROM tv_airings WHERE org_id = $1 AND ${after.sql} ORDER BY ${keysetOrder(AIRINGS_KEYSET)} LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}

/**
 * The organization's traffic for each request, in request order, on the DuckDB mirror (which
 * traffic counts: docs/growth-imports.md). One sorted pass per scope, not a join: a running count
 * of visits read at each request end, ends first within a millisecond, so [f, t) = seen(t) - seen(f).
 */
export async function countTraffic(mirror: Pick<Mirror, 'query'>, orgId: string, requests: readonly CountRequest[]): Promise<number[]> {
  if (requests.length === 0) return [];
  const from = new Date(requests.reduce((min, r) => Math.min(min, r.from), Infinity));
  const to = new Date(requests.reduce((max, r) => Math.max(max, r.to), -Infinity));
  const rows = await mirror.query<{ i: number; n: number }>(
    `WITH req AS (
       SELECT unnest(from_json($2, '[{"i":"INTEGER","f":"BIGINT","t":"BIGINT","r":"VARCHAR"}]'), recursive := true)
     ), traffic AS (
       SELECT epoch_ms(created_at) AS ms, lower(region) AS region FROM clicks
        WHERE org_id = $1 AND drop_reason IS NULL AND created_at >= $3 AND created_at < $4
       UNION ALL
       SELECT epoch_ms(coalesce(installed_at, created_at)), lower(region) FROM installs
        WHERE org_id = $1 AND coalesce(installed_at, created_at) >= $3 AND coalesce(installed_at, created_at) < $4
       UNION ALL
       SELECT epoch_ms(occurred_at), lower(region) FROM events
        WHERE org_id = $1 AND name = 'session_start' AND occurred_at >= $3 AND occurred_at < $4
     ), points AS (
       SELECT NULL::VARCHAR AS scope, ms AS x, 1 AS visit, NULL::INTEGER AS i, 0 AS sign FROM traffic
       UNION ALL
       SELECT region, ms, 1, NULL, 0 FROM traffic WHERE region IN (SELECT r FROM req WHERE r IS NOT NULL)
       UNION ALL
       SELECT r, f, 0, i, -1 FROM req
       UNION ALL
       SELECT r, t, 0, i, 1 FROM req
     ), running AS (
       SELECT i, sign, visit, sum(visit) OVER (PARTITION BY scope ORDER BY x, visit ROWS UNBOUNDED PRECEDING) AS seen FROM points
     )
     SELECT i, sum(sign * seen) AS n FROM running WHERE visit = 0 GROUP BY i`,
    [orgId, JSON.stringify(requests.map((r, i) => ({ i, f: r.from, t: r.to, r: r.region }))), from, to],
  );
  const counts = new Array<number>(requests.length).fill(0);
  for (const row of rows) counts[row.i] = Number(row.n);
  return counts;
}
