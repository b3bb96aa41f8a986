/**
 * A click as the pipeline carries it from the redirect to Postgres. Field names follow the
 * clicks table (sql/0001_core.sql); the Click read model of the export API is derived from it.
 */
export interface ClickRecord {
  id: string;
  org_id: string;
  link_id: string | null;
  campaign_id: string | null;
  /** ISO 8601 timestamp of arrival. */
  created_at: string;
  gclid: string | null;
  gbraid: string | null;
  wbraid: string | null;
  campaign_ext_id: string | null;
  ad_group_ext_id: string | null;
  creative_id: string | null;
  keyword: string | null;
  match_type: string | null;
  network: string | null;
  device: string | null;
  placement: string | null;
  target_id: string | null;
  loc_physical_ms: string | null;
  loc_interest_ms: string | null;
  ad_position: string | null;
  next_hop_url: string;
  transparent_param_present: boolean;
  force_transparent: boolean;
  is_bot: boolean;
  latency_ms: number | null;
  ip: string | null;
  ip_day_hash: string | null;
  household_hash: string | null;
  user_agent: string | null;
  referer: string | null;
  country: string | null;
  /** The first-level subdivision (state, province) the city database gives for `ip`. */
  region: string | null;
  os_family: string | null;
  os_version: string | null;
  device_type: string | null;
  drop_reason: string | null;
  params: Record<string, string> | null;
  /** The smart-link routing decision behind the click; null for every other click. */
  route: ClickRoute | null;
  /** 0 to 100, the capped sum of the weights of `risk_reasons` (src/tracking/risk/risk-signals.ts). */
  risk_score: number;
  /** Names of the risk signals the click has, in the signal table's order. */
  risk_reasons: string[];
}

/** What a smart link (/l) did with a visit: the rule that matched, its action, and the page shown. */
export interface ClickRoute {
  /** Position and name of the matching rule; null when no rule matched. */
  rule_index: number | null;
  rule_name: string | null;
  action: 'url' | 'store' | 'deep_link' | 'variants' | 'fallback' | 'destination';
  /** The A/B variant chosen, for a `variants` action. */
  variant_index: number | null;
  /** The 200 page served instead of a 302, if any. */
  page: 'interstitial' | 'qr' | 'preview' | null;
}
