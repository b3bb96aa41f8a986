import type { ClickRecord } from './click.model';

/** The landing URL parameter and its aliases, in order of preference. */
export const LANDING_PARAMS = ['url', 'u', 'redirect', 'dest', 'r'] as const;
export const FORCE_TRANSPARENT_PARAM = 'force_transparent';
/** The click id the redirect adds to the landing URL; one sent by the visitor is never the click's. */
export const CLICK_ID_PARAM = 'svc_click_id';

/** Query parameters the spec lists for /c, and the click column each one lands in. */
export const CAPTURED_PARAMS = {
  gclid: 'gclid',
  gbraid: 'gbraid',
  wbraid: 'wbraid',
  campaignid: 'campaign_ext_id',
  adgroupid: 'ad_group_ext_id',
  creative: 'creative_id',
  keyword: 'keyword',
  matchtype: 'match_type',
  network: 'network',
  device: 'device',
  placement: 'placement',
  targetid: 'target_id',
  loc_physical_ms: 'loc_physical_ms',
  loc_interest_ms: 'loc_interest_ms',
  adposition: 'ad_position',
} as const satisfies Record<string, keyof ClickRecord>;

export type CapturedColumn = (typeof CAPTURED_PARAMS)[keyof typeof CAPTURED_PARAMS];

/** Parameters with a closed set of values (Google Ads ValueTrack); anything else is not stored. */
export const ALLOWED_VALUES: Partial<Record<keyof typeof CAPTURED_PARAMS, ReadonlySet<string>>> = {
  matchtype: new Set(['e', 'p', 'b', 'a']),
  network: new Set(['g', 's', 'd', 'ytv', 'yts']),
  device: new Set(['m', 't', 'c']),
};

/** Limits on what a click keeps from its query string (values past these are cut or dropped). */
export const CAPTURE_LIMITS = {
  /** The spec's gclid limit; a longer gclid is not a gclid and is not stored. */
  gclidLength: 256,
  valueLength: 512,
  /** Other query parameters (utm_*, sub ids ...) kept in `params`. */
  extraParams: 32,
  extraNameLength: 64,
  /** User agent and referer. */
  headerLength: 2048,
} as const;

/**
 * Text as Postgres can store it: without U+0000, which no text or jsonb value may hold (a single
 * `%00` in a query string would otherwise make the click unstorable). Nothing else is changed.
 */
export function storable(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '') : text;
}

/** An impression as the pipeline carries it (the impressions table). The raw IP is never part of it. */
export interface ImpressionRecord {
  id: string;
  org_id: string;
  campaign_id: string | null;
  app_id: string | null;
  creative_id: string | null;
  placement: string | null;
  partner: string | null;
  ip_day_hash: string;
  household_hash: string;
  user_agent: string | null;
  os: string | null;
  device_type: string | null;
  country: string | null;
  source: string;
  /** ISO 8601 timestamp of arrival. */
  created_at: string;
}

/** Limits on the pixel's query values; the partner limit is the spec's. */
export const IMPRESSION_LIMITS = { partnerLength: 64, valueLength: 256 } as const;

/**
 * A click as the redirect journals it: only the fields that differ from CLICK_DEFAULTS, so the
 * line written before each 302 stays short and cheap to serialise. The batcher completes it,
 * with what the query string journaled beside it carries.
 */
export type JournaledClick = Partial<ClickRecord> & Pick<ClickRecord, 'id' | 'org_id' | 'created_at' | 'next_hop_url'>;

export const CLICK_DEFAULTS: Omit<ClickRecord, 'id' | 'org_id' | 'created_at' | 'next_hop_url'> = {
  link_id: null, campaign_id: null, gclid: null, gbraid: null, wbraid: null, campaign_ext_id: null,
  ad_group_ext_id: null, creative_id: null, keyword: null, match_type: null, network: null, device: null,
  placement: null, target_id: null, loc_physical_ms: null, loc_interest_ms: null, ad_position: null,
  transparent_param_present: false, force_transparent: false, is_bot: false, latency_ms: null, ip: null,
  ip_day_hash: null, household_hash: null, user_agent: null, referer: null, country: null, region: null, os_family: null,
  os_version: null, device_type: null, drop_reason: null, params: null, route: null,
  risk_score: 0, risk_reasons: [],
};

export function completeClick(click: JournaledClick): ClickRecord {
  return { ...CLICK_DEFAULTS, ...click };
}

/**
 * One line of the click journal: a click or an impression. A click's `q` is its redirect's query
 * string as sent, whose parameters the batcher captures (pipeline/click-capture.ts); a line
 * without `q` carries them in `r` already, so a journal an earlier version left replays unchanged.
 */
export type JournalEntry = { k: 'c'; r: JournaledClick; q?: string } | { k: 'i'; r: ImpressionRecord };

export const CLICK_COLUMNS = [
  'id', 'org_id', 'link_id', 'campaign_id', 'created_at', 'gclid', 'gbraid', 'wbraid', 'campaign_ext_id',
  'ad_group_ext_id', 'creative_id', 'keyword', 'match_type', 'network', 'device', 'placement', 'target_id',
  'loc_physical_ms', 'loc_interest_ms', 'ad_position', 'next_hop_url', 'transparent_param_present',
  'force_transparent', 'is_bot', 'latency_ms', 'ip', 'ip_day_hash', 'household_hash', 'user_agent', 'referer',
  'country', 'os_family', 'os_version', 'device_type', 'drop_reason', 'params', 'route',
  'risk_score', 'risk_reasons', 'region',
] as const satisfies readonly (keyof ClickRecord)[];

export const IMPRESSION_COLUMNS = [
  'id', 'org_id', 'campaign_id', 'app_id', 'creative_id', 'placement', 'partner', 'ip_day_hash',
  'household_hash', 'user_agent', 'os', 'device_type', 'country', 'source', 'created_at',
] as const satisfies readonly (keyof ImpressionRecord)[];

/** A 1x1 transparent GIF89a (43 bytes): palette of one entry, graphic control extension marks index 0 transparent. */
export const TRANSPARENT_GIF = new Uint8Array([
  0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff,
  0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02,
  0x02, 0x44, 0x01, 0x00, 0x3b,
]);

/** Compile-time guard: a column added to ClickRecord or ImpressionRecord must be inserted too. */
type Exhaustive<T extends never> = T;
export type ClickColumnsCovered = Exhaustive<Exclude<keyof ClickRecord, (typeof CLICK_COLUMNS)[number]>>;
export type ImpressionColumnsCovered = Exhaustive<Exclude<keyof ImpressionRecord, (typeof IMPRESSION_COLUMNS)[number]>>;
