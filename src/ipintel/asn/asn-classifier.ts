import type { AsnRecord } from './asn-table';
import { sortedUnique, type ListedType } from './asn-types';

/**
 * The offline classifier of the refresh script: hosting and mobile networks recognised by the
 * organisation name the ASN data carries, plus a few AS numbers whose published name does not
 * say what they are. A heuristic, documented in docs/ip-intelligence.md ("The classifier").
 */
interface Rules {
  /** Any of these in the name puts the AS in the class... */
  names: readonly RegExp[];
  /** ...unless one of these is there too. */
  except: readonly RegExp[];
  /** AS numbers in the class whatever their name. */
  numbers: ReadonlyMap<number, string>;
}

export const DATACENTER_RULES: Rules = {
  names: [
    // Clouds, hosts and CDNs by brand.
    /\bamazon(?:\.com| technologies| data services| web services)\b/i,
    /\bgoogle\b/i,
    /\bmicrosoft\b/i,
    /\bdigital ?ocean\b/i,
    /\bovh\b/i,
    /\bhetzner\b/i,
    /\blinode\b/i,
    /\bakamai\b/i,
    /\bvultr\b|\bchoopa\b|\bthe constant company\b/i,
    /\bcontabo\b/i,
    /\balibaba\b|\baliyun\b/i,
    /\btencent\b/i,
    /\boracle\b/i,
    /\bscaleway\b/i,
    /\bleaseweb\b/i,
    /\bhostinger\b/i,
    /\bcloudflare\b/i,
    /\bfastly\b/i,
    /\brackspace\b/i,
    /\bsoftlayer\b/i,
    /\bionos\b/i,
    /\bm247\b/i,
    /\bdatacamp\b/i,
    /\bzenlayer\b/i,
    /\bg-?core labs\b/i,
    /\bequinix\b/i,
    /\bhivelocity\b/i,
    /\bcolocrossing\b/i,
    /\bquadranet\b/i,
    /\bpsychz\b/i,
    /\bworldstream\b/i,
    /\bselectel\b/i,
    /\bupcloud\b/i,
    /\bkamatera\b/i,
    /\bfrantech\b/i,
    // What hosting companies call themselves.
    /hosting|\bhoster\b|\bwebhost/i,
    /\bdata ?cent(?:er|re)s?\b/i,
    /\bservers?\b/i,
    /\bcloud\b/i,
    /\bvps\b/i,
    /\bcolo(?:cation)?\b/i,
    /\bdedicated\b/i,
    /\bcdn\b/i,
  ],
  // Google Fiber is a home ISP; "VPS" also abbreviates a broker and an ISP.
  except: [/\bfiber\b/i, /\bvps (?:securities|broadband)\b/i],
  numbers: new Map(),
};

export const MOBILE_RULES: Rules = {
  names: [
    /\bmobil(?:e|ity|ink)?\b/i,
    /\bcellular\b|\bcelular\b|\bcellcom\b/i,
    /\bm[oó]vil(?:es)?\b/i,
    /\bselular\b/i,
    /\b(?:3g|gsm|gprs|umts)\b/i,
    /\bmobilfunk\b/i,
    /\bverizon wireless\b|\bcellco\b/i,
    /\breliance jio\b/i,
    /\bmtn\b/i,
    /\bturkcell\b/i,
    /\bsafaricom\b/i,
    /\bmegafon\b/i,
    /\bdocomo\b/i,
    /\bvodafone idea\b/i,
    // Airtel's African operators are mobile; Bharti Airtel's Indian ASes are mostly fixed.
    /^airtel\b/i,
  ],
  // Exxon Mobil is an oil company; Cable & Wireless and Cellcom Fixed Line are fixed-line.
  except: [/\bexxon\b/i, /\bcable (?:&|and) wireless\b/i, /\bfixed\b/i],
  // Carriers whose published names are their parents' (Verizon Business, AT&T Enterprises, Bharti Airtel).
  numbers: new Map([
    [6167, 'Verizon Wireless (Cellco Partnership)'],
    [22394, 'Verizon Wireless (Cellco Partnership)'],
    [20057, 'AT&T Mobility'],
    [45609, 'Bharti Airtel mobile (GPRS service)'],
    [10507, 'Sprint Personal Communications Systems'],
  ]),
};

function matches(rules: Rules, { asn, org }: AsnRecord): boolean {
  if (rules.numbers.has(asn)) return true;
  return rules.names.some((name) => name.test(org)) && !rules.except.some((except) => except.test(org));
}

/** The class an AS falls in by its name, datacenter first; null for neither. */
export function classifyAsn(record: AsnRecord): ListedType | null {
  if (matches(DATACENTER_RULES, record)) return 'datacenter';
  if (matches(MOBILE_RULES, record)) return 'mobile';
  return null;
}

/** Both lists from every (asn, org) pair of the ASN data; an AS with several names counts if any matches. */
export function classifyAll(records: Iterable<AsnRecord>): Record<ListedType, number[]> {
  const found: Record<ListedType, number[]> = { datacenter: [], mobile: [] };
  for (const record of records) {
    const type = classifyAsn(record);
    if (type) found[type].push(record.asn);
  }
  const datacenter = new Set(found.datacenter);
  return { datacenter: sortedUnique(datacenter), mobile: sortedUnique(found.mobile.filter((asn) => !datacenter.has(asn))) };
}
