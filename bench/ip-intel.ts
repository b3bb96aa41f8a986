/**
 * npm run bench:ipintel
 *
 * What IP intelligence costs one process (src/ipintel/), in two fresh processes on one cache
 * directory: `cold` parses the ASN CSV files and writes the cache, `warm` maps that cache. Each
 * reports the ASN table's load time and memory, the city databases' first lookup, the time of one
 * address's full lookup (pool, place, country) over pseudo-random IPv4 and IPv6 addresses, and
 * the resident memory it all adds. The reference is the same process before any load. One JSON line.
 */
import { openIpIntel } from '../src/ipintel/ip-intel';
import { loadAsnTable } from '../src/ipintel/asn/asn-load';
import { treeMemory } from './process-memory';
import { scratchDir } from './scratch-dir';

const N = Number(process.env.N ?? 100_000);
const round = (value: number) => Math.round(value * 10) / 10;

/** A fixed sequence of addresses, the same every run (xorshift32); one in four is IPv6. */
function addresses(count: number): string[] {
  let state = 2463534242;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  return Array.from({ length: count }, (_, i) => {
    if (i % 4 === 3) return `2a0${next() % 10}:${(next() & 0xffff).toString(16)}:${(next() & 0xffff).toString(16)}::${(next() & 0xffff).toString(16)}`;
    const n = next();
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  });
}

/** Resident memory once collections have run: the anonymous part (heaps) and the mapped files. */
async function settle(): Promise<{ rssMb: number; anonMb: number }> {
  Bun.gc(true);
  await Bun.sleep(2000);
  Bun.gc(true);
  return treeMemory(process.pid);
}

/** Every method on every address; the list is garbage once this returns. */
function lookups(intel: ReturnType<typeof openIpIntel>, list: string[]) {
  const began = performance.now();
  let found = 0;
  for (const ip of list) if (intel.pool(ip).asn !== null && intel.place(ip).city !== null && intel.country(ip) !== null) found++;
  return { found, lookupUs: ((performance.now() - began) * 1000) / list.length };
}

/** One process's figures (run as a child: `bun bench/ip-intel.ts --measure <cacheDir>`). */
async function measure(cacheDir: string) {
  const start = await settle();
  let began = performance.now();
  loadAsnTable({ cacheDir });
  const asnLoadMs = performance.now() - began;
  const peak = treeMemory(process.pid);
  const loaded = await settle();

  const intel = openIpIntel({ cacheDir });
  began = performance.now();
  intel.place('8.8.8.8');
  intel.place('2a00:1450:4001:82b::200e');
  const cityFirstMs = performance.now() - began;
  intel.country('8.8.8.8');
  const { found, lookupUs } = lookups(intel, addresses(N));
  const end = await settle();
  return {
    found,
    asn_load_ms: Math.round(asnLoadMs),
    asn_load_peak_rss_mb: round(peak.rssMb - start.rssMb),
    asn_anon_mb: round(loaded.anonMb - start.anonMb),
    asn_mapped_mb: round(loaded.rssMb - loaded.anonMb - (start.rssMb - start.anonMb)),
    city_first_lookup_ms: round(cityFirstMs),
    lookup_us: round(lookupUs),
    total_anon_mb: round(end.anonMb - start.anonMb),
    total_mapped_mb: round(end.rssMb - end.anonMb - (start.rssMb - start.anonMb)),
  };
}

if (process.argv[2] === '--measure') {
  console.log(JSON.stringify(await measure(process.argv[3]!)));
} else {
  const cacheDir = scratchDir('ipintel');
  const run = () => {
    const child = Bun.spawnSync([process.execPath, import.meta.path, '--measure', cacheDir], { stderr: 'inherit' });
    if (child.exitCode !== 0) throw new Error(`measuring process exited with ${child.exitCode}`);
    return JSON.parse(child.stdout.toString()) as Record<string, number>;
  };
  const cold = run();
  const warm = run();
  console.log(JSON.stringify({ bench: 'ipintel', addresses: N, cold, warm }));
}
