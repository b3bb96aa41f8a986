import type { Queryable } from '../db/db';
import type { ClickTouch, ImpressionTouch } from './attribution.model';

/**
 * The reads of the waterfall. Every one is scoped to the app's organization, counts only clicks
 * without a drop reason, and bounds time on both sides so the (org, key, created_at DESC)
 * indexes answer it.
 */

export interface TimeRange {
  /** Inclusive lower bound. */
  from: Date;
  /** Inclusive upper bound. */
  to: Date;
  /** Exclusive lower bound for re-attribution (touches after the previous attribution). */
  after: Date | null;
}

interface ClickRow {
  id: string;
  campaign_id: string | null;
  created_at: Date;
  deep_link_path: string | null;
  os_family: string | null;
  os_version: string | null;
  device_type: string | null;
}

const CLICK_COLUMNS = `c.id, COALESCE(c.campaign_id, l.campaign_id) AS campaign_id, c.created_at, l.deep_link_path,
  c.os_family, c.os_version, c.device_type`;
// The link is probed by primary key for each candidate click (LATERAL ... LIMIT 1, which the
// planner cannot flatten into a join): a hash join would read every link of the organization
// on each install to find the few the candidates point at.
const CLICK_FROM = `clicks c LEFT JOIN LATERAL (
    SELECT campaign_id, deep_link_path FROM links WHERE id = c.link_id AND org_id = c.org_id LIMIT 1) l ON true`;

function toClick(row: ClickRow): ClickTouch {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    createdAt: new Date(row.created_at),
    deepLinkPath: row.deep_link_path,
    osFamily: row.os_family,
    osVersion: row.os_version,
    deviceType: row.device_type,
  };
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The click named by a click id (launch deep link or install referrer). */
export async function findClickById(db: Queryable, orgId: string, clickId: string, range: TimeRange): Promise<ClickTouch | null> {
  const rows = await db.query<ClickRow>(
    `SELECT ${CLICK_COLUMNS} FROM ${CLICK_FROM}
     WHERE c.id = $1 AND c.org_id = $2 AND c.drop_reason IS NULL
       AND c.created_at >= $3::timestamptz AND c.created_at <= $4::timestamptz
       AND ($5::timestamptz IS NULL OR c.created_at > $5::timestamptz)`,
    [clickId, orgId, iso(range.from), iso(range.to), iso(range.after)],
  );
  return rows[0] ? toClick(rows[0]) : null;
}

/** The most recent click that carried this gclid. */
export async function findClickByGclid(db: Queryable, orgId: string, gclid: string, range: TimeRange): Promise<ClickTouch | null> {
  const rows = await db.query<ClickRow>(
    `SELECT ${CLICK_COLUMNS} FROM ${CLICK_FROM}
     WHERE c.org_id = $1 AND c.gclid = $2 AND c.drop_reason IS NULL
       AND c.created_at >= $3::timestamptz AND c.created_at <= $4::timestamptz
       AND ($5::timestamptz IS NULL OR c.created_at > $5::timestamptz)
     ORDER BY c.created_at DESC LIMIT 1`,
    [orgId, gclid, iso(range.from), iso(range.to), iso(range.after)],
  );
  return rows[0] ? toClick(rows[0]) : null;
}

/** Candidate clicks per address: the latest this many are compared, which bounds a busy shared address. */
export const MAX_IP_CANDIDATES = 50;

export interface SignalQuery {
  orgId: string;
  appId: string;
  ip: string;
  /** Clicks from the address (deferred deep link and probabilistic tiers). */
  ipRange: TimeRange;
  /** The address hashed with each UTC day of the view-through window. */
  ipDayHashes: readonly string[];
  viewRange: TimeRange;
  householdHash: string;
  householdRange: TimeRange;
}

export interface SignalTouches {
  /** Newest first. */
  ipClicks: ClickTouch[];
  viewImpression: ImpressionTouch | null;
  householdClick: ClickTouch | null;
  householdImpression: ImpressionTouch | null;
}

type TouchRow = ClickRow & { kind: 'ip_click' | 'view_impression' | 'household_click' | 'household_impression' };

/** A click or impression of a campaign made for another app of the organization never attributes this app. */
const CLICK_FOR_APP = 'LEFT JOIN LATERAL (SELECT app_id FROM campaigns WHERE id = COALESCE(c.campaign_id, l.campaign_id) LIMIT 1) k ON true';
const IMPRESSION_FOR_APP = 'LEFT JOIN LATERAL (SELECT app_id FROM campaigns WHERE id = i.campaign_id LIMIT 1) k ON true';
const IMPRESSION_COLUMNS = 'i.id, i.campaign_id, i.created_at, NULL AS deep_link_path, NULL AS os_family, NULL AS os_version, NULL AS device_type';
const range = (from: number) => `AND created_at >= $${from}::timestamptz AND created_at <= $${from + 1}::timestamptz
        AND ($${from + 2}::timestamptz IS NULL OR created_at > $${from + 2}::timestamptz)`;

/**
 * Everything the IP-based tiers (deferred deep link, probabilistic, view-through, household)
 * could match, in one round trip: each branch is an index range scan on (org_id, key, created_at).
 */
const SIGNAL_SQL = `
  (SELECT 'ip_click' AS kind, ${CLICK_COLUMNS} FROM ${CLICK_FROM} ${CLICK_FOR_APP}
    WHERE c.org_id = $1 AND c.ip = $3 AND c.drop_reason IS NULL ${range(4).replaceAll('created_at', 'c.created_at')}
      AND (k.app_id IS NULL OR k.app_id = $2)
    ORDER BY c.created_at DESC LIMIT ${MAX_IP_CANDIDATES})
  UNION ALL
  (SELECT 'view_impression', ${IMPRESSION_COLUMNS} FROM impressions i ${IMPRESSION_FOR_APP}
    WHERE i.org_id = $1 AND i.ip_day_hash = ANY($7::text[]) ${range(8).replaceAll('created_at', 'i.created_at')}
      AND (i.app_id IS NULL OR i.app_id = $2) AND (k.app_id IS NULL OR k.app_id = $2)
    ORDER BY i.created_at DESC LIMIT 1)
  UNION ALL
  (SELECT 'household_click', ${CLICK_COLUMNS} FROM ${CLICK_FROM} ${CLICK_FOR_APP}
    WHERE c.org_id = $1 AND c.household_hash = $11 AND c.drop_reason IS NULL ${range(12).replaceAll('created_at', 'c.created_at')}
      AND (k.app_id IS NULL OR k.app_id = $2)
    ORDER BY c.created_at DESC LIMIT 1)
  UNION ALL
  (SELECT 'household_impression', ${IMPRESSION_COLUMNS} FROM impressions i ${IMPRESSION_FOR_APP}
    WHERE i.org_id = $1 AND i.household_hash = $11 ${range(12).replaceAll('created_at', 'i.created_at')}
      AND (i.app_id IS NULL OR i.app_id = $2) AND (k.app_id IS NULL OR k.app_id = $2)
    ORDER BY i.created_at DESC LIMIT 1)`;

const toImpression = (row: ClickRow): ImpressionTouch => ({ id: row.id, campaignId: row.campaign_id, createdAt: new Date(row.created_at) });

export async function findSignalTouches(db: Queryable, q: SignalQuery): Promise<SignalTouches> {
  const rows = await db.query<TouchRow>(SIGNAL_SQL, [
    q.orgId,
    q.appId,
    q.ip,
    iso(q.ipRange.from),
    iso(q.ipRange.to),
    iso(q.ipRange.after),
    [...q.ipDayHashes],
    iso(q.viewRange.from),
    iso(q.viewRange.to),
    iso(q.viewRange.after),
    q.householdHash,
    iso(q.householdRange.from),
    iso(q.householdRange.to),
    iso(q.householdRange.after),
  ]);
  const first = (kind: TouchRow['kind']) => rows.find((row) => row.kind === kind);
  const viewImpression = first('view_impression');
  const householdClick = first('household_click');
  const householdImpression = first('household_impression');
  return {
    ipClicks: rows
      .filter((row) => row.kind === 'ip_click')
      .map(toClick)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()),
    viewImpression: viewImpression ? toImpression(viewImpression) : null,
    householdClick: householdClick ? toClick(householdClick) : null,
    householdImpression: householdImpression ? toImpression(householdImpression) : null,
  };
}
