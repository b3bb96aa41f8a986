/**
 * GET /l/{slug} against GET /c/{slug} on the same real server process, in one run: a smart link
 * with 20 rules of which only the last matches, and a tracking link, under the load shape of
 * bench:redirect (bench/redirect-load.ts). Prints one JSON line: each path's rate, p50 and p99,
 * `lost` (answered minus stored after shutdown), and `l_to_c` = /l's rate over /c's.
 *
 *   npm run bench:smartlink
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_WARMUP=3 (defaults)
 *   BENCH_TARGETS=postgres,embedded (default: both)
 */
import postgres from 'postgres';
import { join } from 'node:path';
import { openPglite } from '../src/db/pglite';
import { createLinkOver } from '../test/support/over-http';
import { freePort, startServer } from '../test/support/server';
import { settled } from './process-cpu';
import { backlogDrained, bare, CONNECTIONS, drive, DURATION, QUERY, round, summary, WARMUP, eachTarget, type Load } from './redirect-load';
import { removeScratch, scratchDir } from './scratch-dir';
import { serviceSettingsFromEnv } from './service-settings';

/** The smart link's query: no `url` (it would override the rules), the parameter the last rule reads. */
const SMART_QUERY = '?utm_source=bench&gclid=bench-gclid&matchtype=e&network=g';
const SMART_HEADERS = ['Accept-Language: en-US,en;q=0.9,de;q=0.5'];

/** Nineteen rules a bench visit fails, each on a different condition, then the one it matches. */
export function benchRules() {
  const misses = [
    { if: { country: ['DE', 'AT', 'CH'] }, then: { url: 'https://de.example.com' } },
    { if: { os: ['android'] }, then: { store: 'https://play.google.com/store/apps/details?id=com.example' } },
    { if: { params: { utm_source: ['news'] } }, then: { url: 'https://news.example.com' } },
    { if: { language: ['fr'] }, then: { url: 'https://fr.example.com' } },
    { if: { in_app: true }, then: { url: 'https://inapp.example.com' } },
    { if: { ip_type: ['datacenter'] }, then: { block: 403 } },
    { if: { city: ['Berlin', 'Munich'] }, then: { url: 'https://city.example.com' } },
    { if: { region: ['Bavaria'] }, then: { url: 'https://region.example.com' } },
    { if: { os: ['desktop'], country: ['US'] }, then: { url: 'https://desktop.example.com' } },
    { if: { params: { campaign: ['*'] } }, then: { variants: [{ url: 'https://a.example.com', weight: 50 }, { url: 'https://b.example.com', weight: 50 }] } },
  ];
  const rules: object[] = Array.from({ length: 19 }, (_, index) => ({ name: `miss-${index}`, ...misses[index % misses.length]! }));
  rules.push({ name: 'match', if: { os: ['ios'], params: { utm_source: ['bench'] } }, then: { url: 'https://landing.example.com/p?a=1&b=two' } });
  return { version: 1, rules, fallback: { url: 'https://fallback.example.com' } };
}

async function createLink(url: string, apiKey: string, body: object): Promise<{ slug: string; id: string }> {
  const response = await fetch(`${url}/api/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`create link: ${response.status} ${await response.text()}`);
  return (await response.json()) as { slug: string; id: string };
}

const TRACKING_LINK = { destination: 'https://landing.example.com/c' };
const SMART_LINK = { kind: 'smart', destination: 'https://landing.example.com/smart', rules: benchRules() };

async function storedClicks(databaseUrl: string | undefined, dataDir: string, linkIds: string[]): Promise<number[]> {
  const countSql = 'SELECT count(*)::int AS n FROM clicks WHERE link_id = $1';
  if (databaseUrl) {
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const counts = await Promise.all(linkIds.map(async (id) => (await sql.unsafe(countSql, [id]))[0]!.n as number));
    await sql.end();
    return counts;
  }
  const db = await openPglite(join(dataDir, 'pglite'));
  const counts = [];
  for (const id of linkIds) counts.push((await db.query<{ n: number }>(countSql, [id]))[0]!.n);
  await db.close();
  return counts;
}

/** Warm-up visits go to links of their own, so the measured links' stored clicks are exactly the measured run's. */
async function service(databaseUrl: string | undefined) {
  const port = await freePort();
  const env: Record<string, string> = { PORT: String(port), TRACKING_URL: `http://127.0.0.1:${port}`, ...serviceSettingsFromEnv() };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const server = await startServer(env, { dataDir: scratchDir('service'), timeoutMs: 120_000 });
  const pid = server.proc.pid;
  const loads: { c?: Load; l?: Load } = {};
  let measured: { id: string }[] = [];
  try {
    const { apiKey } = await createLinkOver(server);
    const link = (body: object) => createLink(server.url, apiKey, body);
    const [warmC, warmL, c, l] = [await link(TRACKING_LINK), await link(SMART_LINK), await link(TRACKING_LINK), await link(SMART_LINK)];
    measured = [c, l];
    await drive(`${server.url}/c/${warmC.slug}${QUERY}`, WARMUP);
    await drive(`${server.url}/l/${warmL.slug}${SMART_QUERY}`, WARMUP, SMART_HEADERS);
    await settled(pid);
    loads.c = await drive(`${server.url}/c/${c.slug}${QUERY}`, DURATION);
    await backlogDrained(server.url);
    await settled(pid);
    loads.l = await drive(`${server.url}/l/${l.slug}${SMART_QUERY}`, DURATION, SMART_HEADERS);
    await backlogDrained(server.url);
  } finally {
    const code = await server.stop('SIGTERM');
    if (code !== 0) console.error(`bench: server exited with ${code}:\n${server.output()}`);
  }
  const [storedC, storedL] = await storedClicks(databaseUrl, server.dataDir, measured.map((link) => link.id));
  removeScratch(server.dataDir);
  // A request in flight when wrk stops can be answered and stored without being counted: stored may exceed answered.
  const result = (load: Load, stored: number) => ({ ...summary(load), answered: load.redirects, non_302: load.other, stored, lost: Math.max(0, load.redirects - stored) });
  return { c: result(loads.c!, storedC!), l: result(loads.l!, storedL!), l_to_c: round(loads.l!.rps / loads.c!.rps, 3) };
}

const reference = await bare();
console.error(`bare: ${JSON.stringify(summary(reference))}`);
const targets = await eachTarget(service);
console.log(JSON.stringify({ bench: 'smartlink', tool: 'wrk', connections: CONNECTIONS, duration_s: DURATION, rules: 20, bare: summary(reference), ...targets }));
