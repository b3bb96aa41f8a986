import type { Queryable } from '../db/db';
import { exclusionBlock } from '../ipintel/ip-intel';
import { isPublicAddress } from '../shared/safe-target';

/** One exclusion the sync may push: an IPv4 address or an IPv6 /64, its worst score and last click. */
export interface BlocklistEntry {
  ip_block: string;
  score: number;
  last_seen: Date;
}

/** The blocklist's window: invalid clicks of the last 30 days. */
export const BLOCKLIST_DAYS = 30;

/**
 * The organization's blocklist: the addresses of its invalid clicks since `since` (a score at or
 * above its invalid_threshold; a verified crawler's click never is), grouped by exclusion block,
 * in priority order: highest score first, then the most recent, then the block for a stable order.
 * Non-public addresses (private, loopback, documentation ranges) are left out: no ad click comes from one.
 */
export async function selectBlocklist(db: Queryable, orgId: string, since: Date): Promise<BlocklistEntry[]> {
  const rows = await db.query<{ ip: string; score: number; last_seen: Date }>(
    `SELECT c.ip, max(c.risk_score) AS score, max(c.created_at) AS last_seen
     FROM clicks c JOIN organizations o ON o.id = c.org_id
     WHERE c.org_id = $1 AND c.created_at >= ($2::text)::timestamptz AND c.risk_score > 0
       AND c.risk_score >= o.invalid_threshold AND c.is_bot = false AND c.ip IS NOT NULL
     GROUP BY c.ip`,
    [orgId, since.toISOString()],
  );
  const byBlock = new Map<string, BlocklistEntry>();
  for (const row of rows) {
    if (!isPublicAddress(row.ip)) continue;
    const block = exclusionBlock(row.ip);
    if (!block) continue;
    const score = Number(row.score);
    const lastSeen = new Date(row.last_seen);
    const entry = byBlock.get(block);
    if (!entry) byBlock.set(block, { ip_block: block, score, last_seen: lastSeen });
    else {
      entry.score = Math.max(entry.score, score);
      if (lastSeen > entry.last_seen) entry.last_seen = lastSeen;
    }
  }
  return [...byBlock.values()].sort(
    (a, b) => b.score - a.score || b.last_seen.getTime() - a.last_seen.getTime() || (a.ip_block < b.ip_block ? -1 : a.ip_block > b.ip_block ? 1 : 0),
  );
}
