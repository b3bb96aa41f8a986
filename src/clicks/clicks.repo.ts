import type { Queryable } from '../db/db';
import type { ClickRecord } from '../tracking/click.model';
import type { ClickFilter } from './clicks.model';

/** The columns the export reads: the stored click, as Postgres returns its timestamp. */
export type ClickRow = Pick<
  ClickRecord,
  | 'id' | 'gclid' | 'gbraid' | 'wbraid' | 'campaign_ext_id' | 'ad_group_ext_id' | 'creative_id' | 'keyword'
  | 'match_type' | 'network' | 'device' | 'next_hop_url' | 'transparent_param_present' | 'force_transparent'
  | 'is_bot' | 'drop_reason' | 'latency_ms' | 'route' | 'risk_score' | 'risk_reasons'
> & { created_at: Date };

/**
 * One organization's clicks, newest first (id breaks ties: ULIDs of one millisecond sort in
 * mint order). The optional conditions are fixed fragments chosen here; values are parameters.
 */
export async function selectClicks(db: Queryable, orgId: string, filter: ClickFilter): Promise<ClickRow[]> {
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
  params.push(filter.limit);
  return db.query<ClickRow>(
    `SELECT id, created_at, gclid, gbraid, wbraid, campaign_ext_id, ad_group_ext_id, creative_id, keyword,
            match_type, network, device, next_hop_url, transparent_param_present, force_transparent, is_bot,
            drop_reason, latency_ms, route, risk_score, risk_reasons
       FROM clicks
      WHERE ${conditions.join(' AND ')}
      ORDER BY created_at DESC, id DESC
      LIMIT $${params.length}`,
    params,
  );
}
