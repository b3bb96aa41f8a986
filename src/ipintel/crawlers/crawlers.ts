import ipaddr from 'ipaddr.js';
import { RANGES_DIR, readRangeFile, type RangeFile } from './bot-ranges';
import type { IpAddress } from '../address';

export type SearchEngine = 'google' | 'bing' | 'apple' | 'duckduckgo' | 'yandex' | 'baidu';

export interface Crawler {
  engine: SearchEngine;
  /** What a user agent says when it claims to be this engine's crawler. */
  claim: RegExp;
  /** The engine's published ranges: the shipped file and the official URLs, first one that validates wins. */
  ranges: { file: string; sources: readonly string[] } | null;
}

/**
 * Search-engine crawlers, in claim order. Yandex and Baidu publish no range list (they ask for
 * reverse DNS, which is I/O per click), so their claims are recognised but never verified.
 */
export const CRAWLERS: readonly Crawler[] = [
  {
    engine: 'google',
    claim: /Googlebot|Storebot-Google|Google-InspectionTool|GoogleOther/i,
    ranges: {
      file: 'googlebot.json',
      sources: [
        'https://developers.google.com/static/search/apis/ipranges/googlebot.json',
        'https://developers.google.com/static/crawling/ipranges/common-crawlers.json',
      ],
    },
  },
  {
    engine: 'bing',
    claim: /bingbot|adidxbot|BingPreview|MicrosoftPreview/i,
    ranges: { file: 'bingbot.json', sources: ['https://www.bing.com/toolbox/bingbot.json'] },
  },
  {
    engine: 'apple',
    claim: /Applebot/i,
    ranges: { file: 'applebot.json', sources: ['https://search.developer.apple.com/applebot.json'] },
  },
  {
    engine: 'duckduckgo',
    claim: /DuckDuckBot/i,
    ranges: { file: 'duckduckbot.json', sources: ['https://duckduckgo.com/duckduckbot.json'] },
  },
  {
    engine: 'yandex',
    claim: /Yandex(?:Bot|Images|Video|Media|MobileBot|Accessibility|News|Metrika|Favicons|RenderResources)\b/i,
    ranges: null,
  },
  { engine: 'baidu', claim: /Baiduspider/i, ranges: null },
];

/** The engine whose crawler the user agent claims to be, or null. */
export function claimedEngine(userAgent: string): SearchEngine | null {
  for (const crawler of CRAWLERS) if (crawler.claim.test(userAgent)) return crawler.engine;
  return null;
}

export type EngineRanges = Partial<Record<SearchEngine, RangeFile>>;

/** Every shipped range file, read and validated once at start. */
export function loadShippedRanges(dir = RANGES_DIR): EngineRanges {
  const ranges: EngineRanges = {};
  for (const crawler of CRAWLERS) if (crawler.ranges) ranges[crawler.engine] = readRangeFile(crawler.ranges.file, dir);
  return ranges;
}

/**
 * A claim (claimedEngine) verifies when the address is inside the claimed engine's ranges;
 * the verified_crawler step combines the two.
 */
export interface CrawlerVerifier {
  /** Whether the address is inside the engine's published ranges. */
  inRanges(engine: SearchEngine, ip: IpAddress): boolean;
}

type Compiled = { v4: [ipaddr.IPv4, number][]; v6: [ipaddr.IPv6, number][] };

/** Parses every CIDR once; a check is then a scan of the claimed engine's prefixes of one family. */
export function createCrawlerVerifier(ranges: EngineRanges): CrawlerVerifier {
  const compiled = new Map<SearchEngine, Compiled>();
  for (const [engine, file] of Object.entries(ranges) as [SearchEngine, RangeFile][]) {
    const entry: Compiled = { v4: [], v6: [] };
    for (const cidr of file.prefixes) {
      const [address, bits] = ipaddr.parseCIDR(cidr);
      if (address.kind() === 'ipv4') entry.v4.push([address as ipaddr.IPv4, bits]);
      else entry.v6.push([address as ipaddr.IPv6, bits]);
    }
    compiled.set(engine, entry);
  }
  return {
    inRanges(engine, ip) {
      const entry = compiled.get(engine);
      if (!entry) return false;
      if (ip.kind() === 'ipv4') {
        const v4 = ip as ipaddr.IPv4;
        return entry.v4.some(([network, bits]) => v4.match(network, bits));
      }
      const v6 = ip as ipaddr.IPv6;
      return entry.v6.some(([network, bits]) => v6.match(network, bits));
    },
  };
}
