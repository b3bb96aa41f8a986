import type { Queryable } from '../../db/db';
import { fieldError } from '../../http/errors';
import type { Clock } from '../../shared/ids';
import { createCrawlerVerifier, CRAWLERS, loadShippedRanges, type CrawlerVerifier, type SearchEngine } from '../crawlers/crawlers';
import type { IpAddress } from '../address';
import { exclusionBlock, parseAddress, rateLimitKey, type IpIntel } from '../ip-intel';
import type { IpPoolLookup } from './ippool.model';
import { selectIpClickIntel } from './ippool.repo';

export interface IpPoolDeps {
  db: Queryable;
  clock: Clock;
  ipIntel: IpIntel;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The crawler whose ranges are published, by its usual name. */
const CRAWLER_NAMES: Record<SearchEngine, string> = {
  google: 'googlebot',
  bing: 'bingbot',
  apple: 'applebot',
  duckduckgo: 'duckduckbot',
  yandex: 'yandexbot',
  baidu: 'baiduspider',
};

let shippedVerifier: CrawlerVerifier | undefined;

/** The search-engine crawler whose shipped ranges (src/ipintel/crawlers/bot-ranges/) hold the address. */
export function verifiedCrawlerAt(ip: IpAddress): string | null {
  shippedVerifier ??= createCrawlerVerifier(loadShippedRanges());
  for (const crawler of CRAWLERS) if (crawler.ranges && shippedVerifier.inRanges(crawler.engine, ip)) return CRAWLER_NAMES[crawler.engine];
  return null;
}

/**
 * Everything the dashboard shows about one address: the shipped data's view of it and this
 * organization's own clicks from it: `risk_score` is the highest of the last 24 h, null without clicks.
 */
export async function lookupIp({ db, clock, ipIntel }: IpPoolDeps, orgId: string, text: string): Promise<IpPoolLookup> {
  const address = parseAddress(text);
  if (!address) throw fieldError('ip', 'must be an IPv4 or IPv6 address');
  const ip = address.toString();
  const pool = ipIntel.pool(ip);
  const intel = await selectIpClickIntel(db, orgId, ip, new Date(clock().getTime() - DAY_MS));
  return {
    ip,
    pool: { ...pool, verified_bot: verifiedCrawlerAt(address) },
    geo: { country: ipIntel.country(ip), ...ipIntel.place(ip) },
    rate_limit_key: rateLimitKey(ip)!,
    exclusion: { ip_block: exclusionBlock(ip)! },
    intel: {
      clicks_24h: intel.clicks,
      invalid_clicks_24h: intel.invalid,
      last_seen: intel.last_seen ? new Date(intel.last_seen).toISOString() : null,
      risk_score: intel.risk_score,
    },
  };
}
