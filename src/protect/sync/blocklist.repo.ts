import type { Mirror } from '../../analytics/mirror/mirror';
import { exclusionBlock } from '../../ipintel/ip-intel';
import { isPublicAddress } from '../../shared/net/safe-target';

/** One exclusion the sync may push: an IPv4 address or an IPv6 /64, its worst score and last click. */
export interface BlocklistEntry {
  ip_block: string;
  score: number;
  last_seen: Date;
}

/** The blocklist's window: invalid clicks of the last 30 days. */
export const BLOCKLIST_DAYS = 30;

export interface BlocklistQuery {
  orgId: string;
  since: Date;
  /** The organization's invalid_threshold (selectInvalidThreshold). */
  threshold: number;
}

/**
 * The organization's blocklist: the addresses of its invalid clicks since `since` (a score at or
 * above its threshold; a verified crawler's click never is), grouped by exclusion block, in
 * priority order: highest score first, then the most recent, then the block for a stable order.
 * Non-public addresses (private, loopback, documentation ranges) are left out: no ad click comes from one.
 * Read on the DuckDB mirror, which scans the window without an index on the click insert path;
 * the caller catches it up first (docs/protect-sync.md).
 */
export async function selectBlocklist(mirror: Pick<Mirror, 'query'>, query: BlocklistQuery): Promise<BlocklistEntry[]> {
  const rows = await mirror.query<{ ip: string; score: number; last_seen: Date }>(
    `SELECT ip, max(risk_score) AS score, max(created_at) AS last_seen
       FROM clicks
      WHERE org_id = $1 AND created_at >= $2 AND risk_score >= $3 AND NOT is_bot AND ip IS NOT NULL
      GROUP BY ip`,
    [query.orgId, query.since, query.threshold],
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
