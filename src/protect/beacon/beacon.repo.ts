import type { Queryable } from '../../db/db';
import type { StoredBeacon } from './beacon.model';

/** SQL of the beacon: the click it names, its merged row in click_beacons, and click risk updates. */

/** What scoring a beacon needs of its click. */
export interface BeaconClick {
  id: string;
  org_id: string;
  ip: string | null;
  country: string | null;
  is_bot: boolean;
  risk_reasons: string[];
}

/** A beacon's fields, null where it reported nothing. */
export type BeaconFields = Omit<StoredBeacon, 'click_id' | 'org_id' | 'ip'>;

const CLICK_COLUMNS = 'id, org_id, ip, country, is_bot, risk_reasons';

/** The click with this id, in whichever organization: a beacon carries no credential, only the id. */
export async function findBeaconClick(db: Queryable, clickId: string): Promise<BeaconClick | null> {
  const rows = await db.query<BeaconClick>(`SELECT ${CLICK_COLUMNS} FROM clicks WHERE id = $1`, [clickId]);
  return rows[0] ?? null;
}

/** The click again, locked until the transaction ends, so two beacons never score from one stale read. */
export async function lockBeaconClick(tx: Queryable, clickId: string): Promise<BeaconClick | null> {
  const rows = await tx.query<BeaconClick>(`SELECT ${CLICK_COLUMNS} FROM clicks WHERE id = $1 FOR UPDATE`, [clickId]);
  return rows[0] ?? null;
}

/**
 * Serialises the beacons of one fingerprint in one organization: each counts the others' IPs and
 * may flag their clicks, so two at once would see neither's row, or lock each other's clicks.
 */
export async function lockFingerprint(tx: Queryable, orgId: string, fingerprint: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`click_beacons\n${orgId}\n${fingerprint}`]);
}

const BEACON_COLUMNS = 'click_id, org_id, fingerprint, screen, timezone, languages, webdriver, touch, dwell_ms, scroll, ip';

/*
 * MERGE: the largest dwell and scroll, the latest value reported for the rest; webdriver once true
 * stays true. The owner (organization and the click's IP) is null while the click has not landed,
 * and once known is never taken back.
 */
const MERGE = `INSERT INTO click_beacons AS b
    (click_id, org_id, ip, fingerprint, screen, timezone, languages, webdriver, touch, dwell_ms, scroll, first_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8::boolean, $9::boolean, $10::integer, $11::integer, $12::timestamptz, $12::timestamptz)
  ON CONFLICT (click_id) DO UPDATE SET
    org_id = COALESCE(EXCLUDED.org_id, b.org_id),
    ip = COALESCE(EXCLUDED.ip, b.ip),
    fingerprint = COALESCE(EXCLUDED.fingerprint, b.fingerprint),
    screen = COALESCE(EXCLUDED.screen, b.screen),
    timezone = COALESCE(EXCLUDED.timezone, b.timezone),
    languages = COALESCE(EXCLUDED.languages, b.languages),
    webdriver = CASE WHEN b.webdriver OR EXCLUDED.webdriver THEN true ELSE COALESCE(EXCLUDED.webdriver, b.webdriver) END,
    touch = COALESCE(EXCLUDED.touch, b.touch),
    dwell_ms = GREATEST(b.dwell_ms, EXCLUDED.dwell_ms),
    scroll = GREATEST(b.scroll, EXCLUDED.scroll),
    updated_at = EXCLUDED.updated_at
  RETURNING ${BEACON_COLUMNS}`;

/** Merges one beacon into its click's row (created on the first); resolves to the merged row. */
export async function mergeBeacon(
  db: Queryable,
  clickId: string,
  fields: BeaconFields,
  owner: { orgId: string; ip: string | null } | null,
  now: Date,
): Promise<StoredBeacon> {
  const rows = await db.query<StoredBeacon>(MERGE, [
    clickId,
    owner?.orgId ?? null,
    owner?.ip ?? null,
    fields.fingerprint,
    fields.screen,
    fields.timezone,
    fields.languages,
    fields.webdriver,
    fields.touch,
    fields.dwell_ms,
    fields.scroll,
    now.toISOString(),
  ]);
  return rows[0]!;
}

/** The organization's beacons with this fingerprint updated since `since`, verified crawlers' left out. */
const FINGERPRINT_WINDOW = `FROM click_beacons b JOIN clicks c ON c.id = b.click_id AND c.org_id = b.org_id AND NOT c.is_bot
  WHERE b.org_id = $1 AND b.fingerprint = $2 AND b.updated_at >= $3::timestamptz`;

/** How many distinct click IPs the fingerprint came from. */
export async function fingerprintIpCount(tx: Queryable, orgId: string, fingerprint: string, since: Date): Promise<number> {
  const rows = await tx.query<{ ips: number }>(`SELECT count(DISTINCT b.ip)::int AS ips ${FINGERPRINT_WINDOW}`, [orgId, fingerprint, since.toISOString()]);
  return rows[0]?.ips ?? 0;
}

/** The other clicks of the fingerprint not flagged yet, locked in id order (one order, no deadlock). */
export async function unflaggedFingerprintClicks(
  tx: Queryable,
  orgId: string,
  fingerprint: string,
  since: Date,
  exceptClickId: string,
): Promise<{ id: string; risk_reasons: string[] }[]> {
  return tx.query<{ id: string; risk_reasons: string[] }>(
    `SELECT c.id, c.risk_reasons ${FINGERPRINT_WINDOW}
        AND c.id <> $4 AND NOT c.risk_reasons @> '["fingerprint_reuse"]'::jsonb
      ORDER BY c.id FOR UPDATE OF c`,
    [orgId, fingerprint, since.toISOString(), exceptClickId],
  );
}

/** A beacon stored before its click landed, with that click now that it has. */
export interface LandedBeacon {
  click: BeaconClick;
  fields: BeaconFields;
}

/*
 * The pending pass's two statements, run every 2 s on every node: both reach the few pending rows
 * through click_beacons_pending_idx, never the whole table, and are planned on every call
 * (QueryOptions.planEachCall) as the late matcher's are.
 */
export const LANDED_PENDING_BEACONS = `SELECT b.click_id, b.fingerprint, b.screen, b.timezone, b.languages, b.webdriver, b.touch, b.dwell_ms, b.scroll,
       c.org_id AS click_org_id, c.ip AS click_ip, c.country, c.is_bot, c.risk_reasons
  FROM click_beacons b JOIN clicks c ON c.id = b.click_id
 WHERE b.org_id IS NULL
 ORDER BY b.first_at LIMIT $1`;

export const DELETE_PENDING_BEACONS = 'DELETE FROM click_beacons WHERE org_id IS NULL AND first_at < $1::timestamptz RETURNING click_id';

/** Up to `limit` pending beacons whose click is in Postgres now, oldest first. */
export async function landedPendingBeacons(db: Queryable, limit: number): Promise<LandedBeacon[]> {
  type Row = BeaconFields & Omit<BeaconClick, 'id' | 'org_id' | 'ip'> & { click_id: string; click_org_id: string; click_ip: string | null };
  const rows = await db.query<Row>(LANDED_PENDING_BEACONS, [limit], { planEachCall: true });
  return rows.map((row) => ({
    click: { id: row.click_id, org_id: row.click_org_id, ip: row.click_ip, country: row.country, is_bot: row.is_bot, risk_reasons: row.risk_reasons },
    fields: {
      fingerprint: row.fingerprint,
      screen: row.screen,
      timezone: row.timezone,
      languages: row.languages,
      webdriver: row.webdriver,
      touch: row.touch,
      dwell_ms: row.dwell_ms,
      scroll: row.scroll,
    },
  }));
}

/** Forgets pending beacons first seen before `before`: their click never came. */
export async function deletePendingBeacons(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query<{ click_id: string }>(DELETE_PENDING_BEACONS, [before.toISOString()], { planEachCall: true });
  return rows.length;
}
