/**
 * GET /c/{slug} through the real server process (`bun src/main.ts`), on Postgres and on the
 * embedded default (PGlite), against a bare Bun.serve answering a constant 302, all driven by the
 * same load generator in the same run. Prints one JSON line: requests per second, p50 and p99
 * latency, the ratio service/bare, and `lost` = 302s answered minus clicks found in the database
 * after the server's shutdown flush. Between the warm-up and the measured run the bench waits
 * until the server is idle (`settle_s`): the warm-up's clicks written, the mirror caught up.
 * After the measured run it waits the same way: `drain_s` until the click backlog is 0,
 * `after_s` until the server is idle; then SIGTERM (`stop_s` until it exits). `rss_peak_mb` is
 * the server's resident memory at its highest, `rss_settled_mb` and `anon_settled_mb` once idle.
 *
 *   npm run bench:redirect
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_WARMUP=3 (defaults)
 *   BENCH_TARGETS=postgres,embedded (default: both; the bare reference always runs)
 *   DATABASE_URL=postgres://...  (default: postgres://postgres@127.0.0.1:5432/test when reachable)
 *
 * wrk (Debian's package) is used when installed, autocannon otherwise.
 */
import autocannon from 'autocannon';
import postgres from 'postgres';
import { ADMIN_URL, throwawayDatabase, type ThrowawayDatabase } from './throwaway-database';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { openPglite } from '../src/db/pglite';
import { createLinkOver } from '../test/support/over-http';
import { freePort, startServer } from '../test/support/server';
import { canReadMemory, sampleMemory, treeMemory, type TreeMemory } from './process-memory';
import { removeScratch, scratchDir } from './scratch-dir';
import { serviceSettingsFromEnv } from './service-settings';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const TARGETS = (process.env.BENCH_TARGETS ?? 'postgres,embedded').split(',').map((target) => target.trim());
const WRK = '/usr/bin/wrk';
const LANDING = encodeURIComponent('https://landing.example.com/p?a=1&b=two');
const QUERY = `?url=${LANDING}&gclid=bench-gclid&matchtype=e&network=g`;
/** Sent with every request (to the bare server too): real clicks carry one, and it is parsed, checked for bots and stored. */
const USER_AGENT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

interface Load {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** Responses that were 302s, and everything else (errors, other statuses). */
  redirects: number;
  other: number;
}

/** wrk counts statuses in Lua, per thread, and reports them with its latency percentiles. */
const WRK_SCRIPT = `
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) redirects = 0; other = 0 end
function response(status, headers, body)
  if status == 302 then redirects = redirects + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local r, o = 0, 0
  for _, t in ipairs(threads) do r = r + t:get("redirects"); o = o + t:get("other") end
  o = o + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('WRK_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"redirects":%d,"other":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), r, o))
end
`;

/** The Lua script's file, written once for every wrk run of this bench. */
let wrkScriptPath: string | undefined;
function wrkScript(): string {
  if (!wrkScriptPath) {
    wrkScriptPath = join(scratchDir('wrk'), 'count.lua');
    writeFileSync(wrkScriptPath, WRK_SCRIPT);
  }
  return wrkScriptPath;
}

async function drive(url: string, seconds: number): Promise<Load> {
  if (existsSync(WRK)) {
    const script = wrkScript();
    const proc = Bun.spawn([WRK, `-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-H', `User-Agent: ${USER_AGENT}`, '-s', script, url], { stdout: 'pipe', stderr: 'pipe' });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
    if (!line) throw new Error(`wrk gave no result:\n${out}\n${await new Response(proc.stderr).text()}`);
    const r = JSON.parse(line.slice('WRK_RESULT '.length));
    return { rps: r.requests / (r.duration_us / 1e6), p50_ms: r.p50_us / 1000, p99_ms: r.p99_us / 1000, redirects: r.redirects, other: r.other };
  }
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: { 'user-agent': USER_AGENT } });
  return {
    rps: result.requests.total / (result.duration || seconds),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    redirects: result['3xx'],
    other: result.errors + result.timeouts + result.non2xx - result['3xx'],
  };
}

/** CPU ticks (1/100 s) a process has used, from /proc (Linux). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Waits until the server has written what the warm-up left (its journal drained, the mirror
 * caught up): under 5% of a core for half a second. A service that has run for a while meets a
 * burst this way, and its click writer has measured its own rate by then (backlog-limit.ts).
 */
async function settled(pid: number, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  if (!existsSync(`/proc/${pid}/stat`)) {
    // No /proc (not Linux): a fixed pause instead.
    await Bun.sleep(10_000);
    return (performance.now() - started) / 1000;
  }
  let last = cpuTicks(pid);
  for (let quietChecks = 0; quietChecks < 2 && performance.now() - started < timeoutMs; ) {
    await Bun.sleep(250);
    const now = cpuTicks(pid);
    quietChecks = now - last <= 1 ? quietChecks + 1 : 0;
    last = now;
  }
  return (performance.now() - started) / 1000;
}

/** How long a burst's write-behind and the mirror's copy of it may take before the bench stops waiting. */
const AFTER_LOAD_TIMEOUT_MS = 300_000;

/** Waits until /api/health reports no journaled click left to write; resolves to the seconds it took. */
async function backlogDrained(url: string, timeoutMs = AFTER_LOAD_TIMEOUT_MS): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const health = (await (await fetch(`${url}/api/health`)).json()) as { clicks?: { backlog: number } };
    if ((health.clicks?.backlog ?? 0) === 0) break;
    await Bun.sleep(250);
  }
  return (performance.now() - started) / 1000;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const summary = (load: Load) => ({ rps: Math.round(load.rps), p50_ms: round(load.p50_ms, 3), p99_ms: round(load.p99_ms, 3) });

async function bare(): Promise<Load> {
  const location = `https://landing.example.com/p?a=1&b=two&svc_click_id=${ulid()}`;
  const server = Bun.serve({
    port: 0,
    fetch: () => new Response(null, { status: 302, headers: { Location: location, 'Cache-Control': 'no-store' } }),
  });
  try {
    await drive(`http://127.0.0.1:${server.port}/c/bare${QUERY}`, WARMUP);
    return await drive(`http://127.0.0.1:${server.port}/c/bare${QUERY}`, DURATION);
  } finally {
    server.stop(true);
  }
}

/** A throwaway database on the Postgres server, or null when none is reachable. */
async function throwawayDatabaseOrNull(): Promise<ThrowawayDatabase | null> {
  try {
    return await throwawayDatabase({ connectTimeoutSeconds: 3 });
  } catch (error) {
    console.error(`bench: no Postgres at ${new URL(ADMIN_URL).host} (${(error as Error).message}); measuring the embedded store only`);
    return null;
  }
}

/** The real server on `databaseUrl` (or PGlite when undefined): warm up, measure, SIGTERM, count. */
async function service(databaseUrl: string | undefined) {
  const port = await freePort();
  const env: Record<string, string> = { PORT: String(port), TRACKING_URL: `http://127.0.0.1:${port}` };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  Object.assign(env, serviceSettingsFromEnv());
  const server = await startServer(env, { dataDir: scratchDir('service'), timeoutMs: 120_000 });
  const pid = server.proc.pid;
  let load: Load;
  let linkId: string;
  let drainSeconds = 0;
  let afterSeconds = 0;
  let stopSeconds = 0;
  let settleSeconds = 0;
  let peakMb = 0;
  let settledMemory: TreeMemory = { rssMb: 0, anonMb: 0 };
  try {
    const warmup = await createLinkOver(server);
    await drive(`${server.url}/c/${warmup.slug}${QUERY}`, WARMUP);
    settleSeconds = await settled(pid);
    const measured = await createLinkOver(server);
    linkId = measured.id;
    const memory = canReadMemory(pid) ? sampleMemory(pid) : null;
    load = await drive(`${server.url}/c/${measured.slug}${QUERY}`, DURATION);
    // What the burst leaves behind: the writer's drain, then the mirror's copy, then idle.
    const loadEnded = performance.now();
    drainSeconds = await backlogDrained(server.url);
    await settled(pid, AFTER_LOAD_TIMEOUT_MS);
    afterSeconds = (performance.now() - loadEnded) / 1000;
    if (memory) {
      peakMb = memory.stop().peakMb;
      settledMemory = treeMemory(pid);
    }
  } finally {
    const stopping = performance.now();
    const code = await server.stop('SIGTERM');
    stopSeconds = (performance.now() - stopping) / 1000;
    if (code !== 0) console.error(`bench: server exited with ${code}:\n${server.output()}`);
  }
  const countSql = 'SELECT count(*)::int AS n FROM clicks WHERE link_id = $1';
  let stored: number;
  if (databaseUrl) {
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    stored = (await sql.unsafe(countSql, [linkId]))[0]!.n;
    await sql.end();
  } else {
    const db = await openPglite(join(server.dataDir, 'pglite'));
    stored = (await db.query<{ n: number }>(countSql, [linkId]))[0]!.n;
    await db.close();
  }
  if (stored < load.redirects) console.error(`bench: fewer clicks stored than answered; server output:\n${server.output().slice(-3000)}`);
  removeScratch(server.dataDir);
  return { load, stored, drainSeconds, afterSeconds, stopSeconds, settleSeconds, peakMb, settledMemory };
}

const reference = await bare();
console.error(`bare: ${JSON.stringify(summary(reference))}`);
const targets: Record<string, unknown> = {};
const database = TARGETS.includes('postgres') ? await throwawayDatabaseOrNull() : null;
for (const [name, url] of [['postgres', database?.url], ['embedded', undefined]] as const) {
  if (!TARGETS.includes(name)) continue;
  if (name === 'postgres' && !database) {
    targets.postgres = null;
    continue;
  }
  const { load, stored, drainSeconds, afterSeconds, stopSeconds, settleSeconds, peakMb, settledMemory } = await service(url);
  targets[name] = {
    ...summary(load),
    ratio: round(load.rps / reference.rps, 3),
    answered: load.redirects,
    non_302: load.other,
    stored,
    // A request in flight when the load generator stops can be answered (and stored) without
    // being counted by it, so stored may exceed answered by up to the connection count.
    lost: Math.max(0, load.redirects - stored),
    drain_s: round(drainSeconds, 1),
    after_s: round(afterSeconds, 1),
    stop_s: round(stopSeconds, 1),
    settle_s: round(settleSeconds, 1),
    rss_peak_mb: Math.round(peakMb),
    rss_settled_mb: Math.round(settledMemory.rssMb),
    anon_settled_mb: Math.round(settledMemory.anonMb),
  };
  console.error(`${name}: ${JSON.stringify(targets[name])}`);
}
await database?.drop();

console.log(
  JSON.stringify({
    bench: 'redirect',
    tool: existsSync(WRK) ? 'wrk' : 'autocannon',
    connections: CONNECTIONS,
    duration_s: DURATION,
    bare: summary(reference),
    ...targets,
  }),
);
