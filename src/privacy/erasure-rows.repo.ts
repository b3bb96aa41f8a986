import type { Queryable } from '../db/db';
import { newId } from '../shared/ids';

/**
 * SQL of one erasure pass: every statement is scoped by organization (and by app for the SDK's
 * requests), and deletions from mirrored tables are logged for the DuckDB mirrors.
 */

/** Tables the DuckDB mirror copies that a pass deletes from (src/analytics/mirror/mirror-tables.ts). */
type MirroredTable = 'clicks' | 'impressions' | 'installs' | 'events' | 'subscriptions';

/** Names deleted rows for every node's mirror, by the SHA-256 of their id (docs/analytics-mirror.md, "Deletes"). */
async function logMirrorDeletions(tx: Queryable, table: MirroredTable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(
    `INSERT INTO mirror_deletions (id, table_name, row_hash)
     SELECT $1 || '-' || n, $2, encode(sha256(convert_to(r, 'UTF8')), 'hex') FROM unnest($3::text[]) WITH ORDINALITY AS u(r, n)`,
    [newId(), table, ids],
  );
}

async function deleteLogged(tx: Queryable, table: MirroredTable, sql: string, params: readonly unknown[]): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(sql, params);
  const ids = rows.map((row) => row.id);
  await logMirrorDeletions(tx, table, ids);
  return ids;
}

export interface DeviceInstalls {
  installIds: string[];
  deviceHashes: string[];
  clickIds: string[];
}

/** The installs of a device hash (or of one install id) in scope. */
export async function findInstalls(tx: Queryable, orgId: string, appId: string | null, by: { deviceHash: string } | { installId: string }): Promise<DeviceInstalls> {
  const rows = await tx.query<{ id: string; device_id_hash: string; click_id: string | null }>(
    `SELECT id, device_id_hash, click_id FROM installs
      WHERE org_id = $1 AND ($2::text IS NULL OR app_id = $2) AND ${'deviceHash' in by ? 'device_id_hash = $3' : 'id = $3'}`,
    [orgId, appId, 'deviceHash' in by ? by.deviceHash : by.installId],
  );
  return {
    installIds: rows.map((row) => row.id),
    deviceHashes: [...new Set(rows.map((row) => row.device_id_hash))],
    clickIds: rows.flatMap((row) => (row.click_id === null ? [] : [row.click_id])),
  };
}

/**
 * Deletes a device's installs (their push tokens with them), events, subscriptions and the
 * subscriptions' store notifications and events, and re-engagements. Resolves to the counts and
 * the clicks the re-engagements named, which are the device's too.
 */
export async function eraseDevice(
  tx: Queryable,
  orgId: string,
  appId: string | null,
  device: Pick<DeviceInstalls, 'installIds' | 'deviceHashes'>,
): Promise<{ counts: Record<string, number>; clickIds: string[] }> {
  const scope = [orgId, appId, device.installIds, device.deviceHashes];
  const owned = `org_id = $1 AND ($2::text IS NULL OR app_id = $2) AND (install_id = ANY($3::text[]) OR device_id_hash = ANY($4::text[]))`;
  const subscriptions = await deleteLogged(tx, 'subscriptions', `DELETE FROM subscriptions WHERE ${owned} RETURNING id`, scope);
  const events = await deleteLogged(
    tx,
    'events',
    `DELETE FROM events WHERE ${owned} OR (org_id = $1 AND params->>'subscription_id' = ANY($5::text[])) RETURNING id`,
    [...scope, subscriptions],
  );
  const notifications = await tx.query<{ n: number }>(
    `WITH gone AS (DELETE FROM store_notifications WHERE org_id = $1 AND subscription_id = ANY($2::text[]) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    [orgId, subscriptions],
  );
  const reengagements = await tx.query<{ click_id: string | null }>(
    `DELETE FROM reengagements WHERE org_id = $1 AND install_id = ANY($2::text[]) RETURNING click_id`,
    [orgId, device.installIds],
  );
  const installs = await deleteLogged(tx, 'installs', `DELETE FROM installs WHERE org_id = $1 AND id = ANY($2::text[]) RETURNING id`, [orgId, device.installIds]);
  return {
    counts: {
      installs: installs.length,
      events: events.length,
      subscriptions: subscriptions.length,
      store_notifications: notifications[0]?.n ?? 0,
      reengagements: reengagements.length,
    },
    clickIds: reengagements.flatMap((row) => (row.click_id === null ? [] : [row.click_id])),
  };
}

/**
 * Deletes clicks and their beacons; what only points at them (a conversion's click id and gclid,
 * an install's or re-engagement's click id and match evidence) is cleared, the row kept.
 */
export async function eraseClicks(tx: Queryable, orgId: string, clickIds: readonly string[]): Promise<Record<string, number>> {
  if (clickIds.length === 0) return {};
  // Named first: a click still in a node's journal is dropped by its writer (click-tombstones.ts).
  await tx.query(
    `INSERT INTO click_tombstones (org_id, id_prefix, id_hash)
     SELECT $1, left(r, 10), encode(sha256(convert_to(r, 'UTF8')), 'hex') FROM unnest($2::text[]) AS u(r)
     ON CONFLICT (org_id, id_hash) DO NOTHING`,
    [orgId, clickIds],
  );
  const gone = await tx.query<{ id: string; gclid: string | null }>(`DELETE FROM clicks WHERE org_id = $1 AND id = ANY($2::text[]) RETURNING id, gclid`, [orgId, clickIds]);
  await logMirrorDeletions(
    tx,
    'clicks',
    gone.map((row) => row.id),
  );
  const gclids = gone.flatMap((row) => (row.gclid === null ? [] : [row.gclid]));
  const count = async (sql: string, params: readonly unknown[]) => (await tx.query<{ n: number }>(`WITH changed AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM changed`, params))[0]?.n ?? 0;
  return {
    clicks: gone.length,
    click_beacons: await count(`DELETE FROM click_beacons WHERE org_id = $1 AND click_id = ANY($2::text[])`, [orgId, clickIds]),
    conversions: await count(
      `UPDATE conversions SET click_id = NULL, gclid = NULL, updated_at = now()
        WHERE org_id = $1 AND (click_id = ANY($2::text[]) OR gclid = ANY($3::text[]))`,
      [orgId, clickIds, gclids],
    ),
    installs_unlinked: await count(
      `UPDATE installs SET click_id = NULL, match_evidence = NULL, updated_at = now() WHERE org_id = $1 AND click_id = ANY($2::text[])`,
      [orgId, clickIds],
    ),
    reengagements_unlinked: await count(`UPDATE reengagements SET click_id = NULL WHERE org_id = $1 AND click_id = ANY($2::text[])`, [orgId, clickIds]),
  };
}

/** The clicks from an address in [from, to] (UTC days, both included). */
export async function clicksFromIp(tx: Queryable, orgId: string, ip: string, fromDay: string, toDay: string): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM clicks WHERE org_id = $1 AND ip = $2 AND created_at >= $3::date AND created_at < $4::date + 1`,
    [orgId, ip, fromDay, toDay],
  );
  return rows.map((row) => row.id);
}

/**
 * What else an address left on those days: impressions (stored by the address's day hash) are
 * deleted; installs keep their row without the day and household hashes; beacons of the address
 * go.
 */
export async function eraseIpTraces(
  tx: Queryable,
  orgId: string,
  subject: { ip: string; fromDay: string; toDay: string; dayHashes: readonly string[] },
): Promise<Record<string, number>> {
  const impressions = await deleteLogged(tx, 'impressions', `DELETE FROM impressions WHERE org_id = $1 AND ip_day_hash = ANY($2::text[]) RETURNING id`, [orgId, subject.dayHashes]);
  const installs = await tx.query(
    `UPDATE installs SET ip_day_hash = NULL, household_hash = NULL, updated_at = now() WHERE org_id = $1 AND ip_day_hash = ANY($2::text[]) RETURNING id`,
    [orgId, subject.dayHashes],
  );
  const beacons = await tx.query(
    `DELETE FROM click_beacons WHERE org_id = $1 AND ip = $2 AND first_at >= $3::date AND first_at < $4::date + 1 RETURNING click_id`,
    [orgId, subject.ip, subject.fromDay, subject.toDay],
  );
  return { impressions: impressions.length, installs_anonymised: installs.length, click_beacons: beacons.length };
}

/**
 * Advertising ids are never stored as such (docs/privacy.md): they can only sit in a click's
 * query parameters or an event's params, which are searched value by value, case aside.
 */
export async function clicksNamingValue(tx: Queryable, orgId: string, value: string): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM clicks WHERE org_id = $1 AND jsonb_typeof(params) = 'object'
        AND EXISTS (SELECT 1 FROM jsonb_each_text(params) p WHERE lower(p.value) = $2)`,
    [orgId, value],
  );
  return rows.map((row) => row.id);
}

export async function eraseEventsNamingValue(tx: Queryable, orgId: string, value: string): Promise<Record<string, number>> {
  const events = await deleteLogged(
    tx,
    'events',
    `DELETE FROM events WHERE org_id = $1 AND jsonb_typeof(params) = 'object'
        AND EXISTS (SELECT 1 FROM jsonb_each_text(params) p WHERE lower(p.value) = $2) RETURNING id`,
    [orgId, value],
  );
  return { events: events.length };
}
