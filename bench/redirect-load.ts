/**
 * The load shape bench:redirect and bench:smartlink share: wrk (Debian's package) with a Lua
 * script counting 302s, a bare Bun.serve answering a constant 302 as the reference, and the waits
 * for a server to settle and drain its click backlog.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { ADMIN_URL, throwawayDatabase, type ThrowawayDatabase } from './throwaway-database';
import { scratchDir } from './scratch-dir';
import { requireWrk } from './wrk';

/** BENCH_BURST=1: a 20 s run, then BENCH_IDLE (60) seconds idle before the settled memory is read. */
export const BURST = process.env.BENCH_BURST === '1';
export const DURATION = Number(process.env.BENCH_DURATION ?? (BURST ? 20 : 10));
/** Seconds the server is left idle after it settles, before its settled memory is read. */
export const IDLE = Number(process.env.BENCH_IDLE ?? (BURST ? 60 : 0));
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
export const THREADS = Number(process.env.BENCH_THREADS ?? 2);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
export const TARGETS = (process.env.BENCH_TARGETS ?? 'postgres,embedded').split(',').map((target) => target.trim());
const LANDING = encodeURIComponent('https://landing.example.com/p?a=1&b=two');
export const QUERY = `?url=${LANDING}&gclid=bench-gclid&matchtype=e&network=g`;
/** Sent with every request (to the bare server too): real clicks carry one, and it is parsed, checked for bots and stored. */
export const USER_AGENT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

export interface Load {
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

/** `headers` are sent with every request besides the user agent (a smart link's rules may read them). */
export async function drive(url: string, seconds: number, headers: readonly string[] = []): Promise<Load> {
  const script = wrkScript();
  const extra = headers.flatMap((header) => ['-H', header]);
  const command = [requireWrk(), `-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-H', `User-Agent: ${USER_AGENT}`, ...extra, '-s', script, url];
  const proc = Bun.spawn(command, { stdout: 'pipe', stderr: 'pipe' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
  if (!line) throw new Error(`wrk gave no result:\n${out}\n${await new Response(proc.stderr).text()}`);
  const r = JSON.parse(line.slice('WRK_RESULT '.length));
  return { rps: r.requests / (r.duration_us / 1e6), p50_ms: r.p50_us / 1000, p99_ms: r.p99_us / 1000, redirects: r.redirects, other: r.other };
}

/** How long a burst's write-behind and the mirror's copy of it may take before the bench stops waiting. */
export const AFTER_LOAD_TIMEOUT_MS = 300_000;

/** Waits until /api/health reports no journaled click left to write; resolves to the seconds it took. */
export async function backlogDrained(url: string, timeoutMs = AFTER_LOAD_TIMEOUT_MS): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const health = (await (await fetch(`${url}/api/health`)).json()) as { clicks?: { backlog: number } };
    if ((health.clicks?.backlog ?? 0) === 0) break;
    await Bun.sleep(250);
  }
  return (performance.now() - started) / 1000;
}

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));
export const summary = (load: Load) => ({ rps: Math.round(load.rps), p50_ms: round(load.p50_ms, 3), p99_ms: round(load.p99_ms, 3) });

export async function bare(): Promise<Load> {
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
export async function throwawayDatabaseOrNull(): Promise<ThrowawayDatabase | null> {
  try {
    return await throwawayDatabase({ connectTimeoutSeconds: 3 });
  } catch (error) {
    console.error(`bench: no Postgres at ${new URL(ADMIN_URL).host} (${(error as Error).message}); measuring the embedded store only`);
    return null;
  }
}


/**
 * Runs `measure` on each of BENCH_TARGETS: Postgres on a throwaway database (null when none is
 * reachable), then the embedded store; answers each target's result by name.
 */
export async function eachTarget(measure: (databaseUrl: string | undefined) => Promise<unknown>): Promise<Record<string, unknown>> {
  const targets: Record<string, unknown> = {};
  const database = TARGETS.includes('postgres') ? await throwawayDatabaseOrNull() : null;
  for (const [name, url] of [['postgres', database?.url], ['embedded', undefined]] as const) {
    if (!TARGETS.includes(name)) continue;
    targets[name] = name === 'postgres' && !database ? null : await measure(url);
    console.error(`${name}: ${JSON.stringify(targets[name])}`);
  }
  await database?.drop();
  return targets;
}
