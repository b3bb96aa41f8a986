import type { Queryable } from '../db/db';
import { exactTimestamp, keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { ClickRecord } from '../tracking/click.model';
import type { ClickFilter } from './clicks.model';

/** The columns the export reads: the stored click, as Postgres returns its timestamp. */
export type ClickRow = Pick<
  ClickRecord,
  | 'id' | 'gclid' | 'gbraid' | 'wbraid' | 'campaign_ext_id' | 'ad_group_ext_id' | 'creative_id' | 'keyword'
  | 'match_type' | 'network' | 'device' | 'next_hop_url' | 'transparent_param_present' | 'force_transparent'
  | 'is_bot' | 'drop_reason' | 'latency_ms' | 'route' | 'risk_score' | 'risk_reasons'
> & { created_at: Date };
/** A row of a page, with created_at to the microsecond for the cursor. */
export type ClickPageRow = ClickRow & { page_at: string };

/**
 * Newest first; the cursor carries the last click's sort key, which the day partitions of
 * `clicks` can prune on (an anchor row looked up by id would visit every partition).
 */
export const CLICKS_KEYSET: Keyset = {
  kind: 'values',
  list: 'clicks',
  columns: [
    { column: 'created_at', cast: 'timestamptz', direction: 'desc' },
    { column: 'id', cast: 'text', direction: 'desc' },
  ],
};

/**
 * One organization's clicks, newest first (id breaks ties: ULIDs of one millisecond sort in
 * mint order). The optional conditions are fixed fragments chosen here; values are parameters.
 */
export async function selectClicks(db: Queryable, orgId: string, filter: Omit<ClickFilter, 'limit'>, page: PageRequest): Promise<ClickPageRow[]> {
  const params: unknown[] = [orgId];
  const conditions = ['org_id = $1'];
  if (filter.since !== null) {
    params.push(filter.since);
    // Cast from text on the server: a timestamptz parameter would pass through a JS Date in the
    // postgres driver and lose the microseconds the bound may carry.
    conditions.push(`created_at >= ($${params.length}::text)::timestamptz`);
  }
  if (filter.gclid !== null) {
    params.push(filter.gclid);
    conditions.push(`gclid = $${params.length}`);
  }
  const after = keysetCondition(CLICKS_KEYSET, page.after, params.length + 1);
  params.push(...after.params);
  conditions.push(after.sql);
  params.push(page.limit);
  return db.query<ClickPageRow>(
    `SELECT id, created_at, ${exactTimestamp('created_at')} AS page_at, gclid, gbraid, wbraid, campaign_ext_id, ad_group_ext_id, creative_id, keyword,
            match_type, network, device, next_hop_url, transparent_param_present, force_transparent, is_bot,
            drop_reason, latency_ms, route, risk_score, risk_reasons
       FROM clicks
      WHERE ${conditions.join(' AND ')}
      ORDER BY ${keysetOrder(CLICKS_KEYSET)}
      LIMIT $${params.length}`,
    params,
  );
}
