/**
 * bun bench/click-enrichment.ts
 *
 * Cost of the ingestion steps per click, as the batcher pays it before each insert: a mix of
 * returning user agents (the common case, served from the parse cache), fresh ones, crawlers
 * and garbage, from almost as many addresses as clicks. Then a flood, bench:redirect's shape:
 * every click from one address with one user agent, a few per millisecond, where what is known
 * of the address is reused (src/tracking/enrich/address-facts.ts). The reference in the same run
 * is the copy every enrich() makes anyway ({...click}) plus the two IP HMACs, the floor an
 * implementation that hashes every click pays.
 * Prints one JSON line.
 */
import { createIpHasher } from '../src/shared/crypto/ip-hash';
import type { ClickRecord } from '../src/tracking/click.model';
import { createIngestion } from '../src/tracking/enrich/ingest';

const ipHasher = createIpHasher('bench-secret-0123456789abcdef0123456789');
const loadStart = performance.now();
const ingestion = createIngestion({ ipHasher });
const loadMs = performance.now() - loadStart;

const agents = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'curl/8.4.0',
];
const base: ClickRecord = {
  id: '', org_id: 'org', link_id: 'link', campaign_id: null, created_at: '2026-09-02T10:00:00.000Z', gclid: 'g', gbraid: null, wbraid: null,
  campaign_ext_id: null, ad_group_ext_id: null, creative_id: null, keyword: null, match_type: null, network: null, device: null, placement: null,
  target_id: null, loc_physical_ms: null, loc_interest_ms: null, ad_position: null, next_hop_url: 'https://shop.example.com/', transparent_param_present: true,
  force_transparent: false, is_bot: false, latency_ms: 1, ip: null, ip_day_hash: null, household_hash: null, user_agent: null, referer: null, country: null, region: null,
  os_family: null, os_version: null, device_type: null, drop_reason: null, params: null, route: null, risk_score: 0, risk_reasons: [],
};
const N = 100_000;
const clicks: ClickRecord[] = Array.from({ length: N }, (_, i) => {
  const fresh = i % 50 === 0; // 2% of clicks bring a user agent never seen before
  const ua = fresh ? `${agents[i % 4]} build/${i}` : agents[i % agents.length]!;
  const ip = i % 97 === 0 ? 'garbage' : i % 6 === 4 ? `66.249.66.${i % 250}` : `${(i * 7919) % 223 + 1}.${(i >> 8) & 255}.${i & 255}.${(i * 31) % 254 + 1}`;
  return { ...base, id: String(i), ip, user_agent: ua };
});

const flood: ClickRecord[] = Array.from({ length: N }, (_, i) => ({
  ...base,
  id: `f${i}`,
  ip: '81.2.69.142',
  user_agent: agents[0]!,
  created_at: new Date(Date.UTC(2026, 8, 2, 10) + Math.floor(i / 6)).toISOString(),
}));

function run(fn: (c: ClickRecord) => unknown, set: ClickRecord[] = clicks): number {
  const start = performance.now();
  for (const click of set) fn(click);
  return ((performance.now() - start) * 1000) / set.length;
}
const reference = (c: ClickRecord) => {
  const copy = { ...c };
  if (copy.ip && copy.ip !== 'garbage') {
    copy.ip_day_hash = ipHasher.ipDay(copy.ip, new Date(copy.created_at));
    copy.household_hash = ipHasher.household(copy.ip);
  }
  return copy;
};
run(reference);
run((c) => ingestion.enrich(c)); // warm-up: JIT and the user-agent cache
const referenceUs = run(reference);
const enrichUs = run((c) => ingestion.enrich(c));
run((c) => ingestion.enrich(c), flood);
const floodUs = run((c) => ingestion.enrich(c), flood);
console.log(JSON.stringify({
  bench: 'click-enrichment',
  clicks: N,
  load_ms: Math.round(loadMs),
  enrich_us_per_click: Number(enrichUs.toFixed(2)),
  reference_us_per_click: Number(referenceUs.toFixed(2)),
  ratio: Number((enrichUs / referenceUs).toFixed(2)),
  flood_us_per_click: Number(floodUs.toFixed(2)),
  flood_ratio: Number((floodUs / referenceUs).toFixed(2)),
}));
