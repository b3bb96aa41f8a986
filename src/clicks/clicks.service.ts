import { orderReasons } from '../tracking/risk/risk-signals';
import type { Db } from '../db/db';
import { readPage, type Page } from '../http/pagination';
import type { ClickRoute } from '../tracking/click.model';
import { DEFAULT_LIMIT, type Click, type ClickFilter } from './clicks.model';
import { CLICKS_KEYSET, selectClicks, type ClickRow } from './clicks.repo';

/**
 * Click export: every stored click of the organization, dropped ones included. dropReason says
 * why a click never attributes; isBot marks verified search-engine crawlers only.
 */
export function listClicks({ db }: { db: Db }, orgId: string, filter: ClickFilter, cursor?: string): Promise<Page<Click>> {
  return readPage({
    keyset: CLICKS_KEYSET,
    orgId,
    query: { limit: filter.limit, cursor },
    defaultLimit: DEFAULT_LIMIT,
    fetch: (page) => selectClicks(db, orgId, filter, page),
    keyOf: (row) => [row.page_at, row.id],
    view: toClick,
  });
}

export function toClick(row: ClickRow): Click {
  return {
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    gclid: row.gclid,
    gbraid: row.gbraid,
    wbraid: row.wbraid,
    campaignExtId: row.campaign_ext_id,
    adGroupExtId: row.ad_group_ext_id,
    creativeId: row.creative_id,
    keyword: row.keyword,
    matchType: row.match_type,
    network: row.network,
    device: row.device,
    nextHopUrl: row.next_hop_url,
    transparentParamPresent: row.transparent_param_present,
    forceTransparent: row.force_transparent,
    isBot: row.is_bot,
    dropReason: row.drop_reason,
    latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
    route: row.route === null ? null : exportedRoute(row.route),
    riskScore: Number(row.risk_score),
    riskReasons: orderReasons(row.risk_reasons ?? []),
  };
}

/** The route's five fields only, so the export's shape never depends on what else a row holds. */
function exportedRoute(route: ClickRoute): ClickRoute {
  const { rule_index, rule_name, action, variant_index, page } = route;
  return { rule_index, rule_name, action, variant_index, page };
}
