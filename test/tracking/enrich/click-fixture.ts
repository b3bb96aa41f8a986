import type { ClickRecord } from '../../../src/tracking/click.model';

export const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
export const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
export const GOOGLEBOT_SMARTPHONE =
  'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.91 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
export const BINGBOT = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
export const APPLEBOT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)';
export const DUCKDUCKBOT = 'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)';
export const YANDEXBOT = 'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)';

/** A click as the redirect hands it to the batcher: request facts set, enrichment columns empty. */
export function rawClick(overrides: Partial<ClickRecord> = {}): ClickRecord {
  return {
    id: '01J0000000000000000000000A',
    org_id: 'org_1',
    link_id: 'link_1',
    campaign_id: null,
    created_at: '2026-09-02T10:15:00.000Z',
    gclid: 'Cj0KCQjw',
    gbraid: null,
    wbraid: null,
    campaign_ext_id: '123',
    ad_group_ext_id: null,
    creative_id: null,
    keyword: null,
    match_type: null,
    network: null,
    device: null,
    placement: null,
    target_id: null,
    loc_physical_ms: null,
    loc_interest_ms: null,
    ad_position: null,
    next_hop_url: 'https://shop.example.com/landing?svc_click_id=01J0000000000000000000000A',
    transparent_param_present: true,
    force_transparent: false,
    is_bot: false,
    latency_ms: 1,
    ip: '81.2.69.160',
    ip_day_hash: null,
    household_hash: null,
    user_agent: IPHONE,
    referer: null,
    country: null,
    region: null,
    os_family: null,
    os_version: null,
    device_type: null,
    drop_reason: null,
    params: null,
    route: null,
    risk_score: 0,
    risk_reasons: [],
    ...overrides,
  };
}
