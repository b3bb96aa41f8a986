/**
 * GET /c/{slug} through the real server process (`bun src/main.ts`), on Postgres and on the
 * embedded default (PGlite), against a bare Bun.serve answering a constant 302, all driven by the
 * same load generator in the same run. Prints one JSON line: requests per second, p50 and p99
 * latency, the ratio service/bare, and `lost` = 302s answered minus clicks found in the database
 * after the server's shutdown flush. Between the warm-up and the measured run the bench waits
 * until the server is idle (`settle_s`): the warm-up's clicks written, the mirror caught up.
 * After the measured run it waits the same way: `drain_s` until the click backlog is 0,
 * `after_s` until the server is idle; then SIGTERM (`stop_s` until it exits). `rss_peak_mb` is
 * the server's resident memory at its highest during and after the measured run (the boot's peak
 * left out), `rss_idle_mb` at rest before it, `rss_settled_mb` and `anon_settled_mb` once idle,
 * BENCH_IDLE seconds after it settled; both at rest are read once the node's threads had the idle
 * readings after which they give a burst's garbage back (restingMemory).
 *
 *   npm run bench:redirect
 *   BENCH_BURST=1 npm run bench:redirect   # 20 s burst, then 60 s idle before settled memory
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_WARMUP=3 (defaults)
 *   BENCH_TARGETS=postgres,embedded (default: both; the bare reference always runs)
 *   DATABASE_URL=postgres://...  (default: postgres://postgres@127.0.0.1:5432/test when reachable)
 *
 * Load from wrk (Debian's package): installed when missing, else the bench stops and says so.
 */
import postgres from 'postgres';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { openPglite } from '../src/db/pglite';
import { createLinkOver } from '../test/support/over-http';
import { freePort, startServer } from '../test/support/server';
import { canReadMemory, sampleMemory, treeMemory, type TreeMemory } from './process-memory';
import {
  AFTER_LOAD_TIMEOUT_MS,
  backlogDrained,
  bare,
  CONNECTIONS,
  drive,
  DURATION,
  IDLE,
  QUERY,
  round,
  summary,
  eachTarget,
  WARMUP,
  type Load,
} from './redirect-load';
import { settled } from './process-cpu';
import { removeScratch, scratchDir } from './scratch-dir';
import { serviceSettingsFromEnv } from './service-settings';
import { QUIET_READINGS, READING_MS } from '../src/shared/idle-collection';

/**
 * The tree's memory once the node has given back what the load left: each of its threads collects
 * after QUIET_READINGS idle readings (src/shared/idle-collection.ts), so memory at rest is read
 * one reading after that and once the collections' own CPU time is over.
 */
async function restingMemory(pid: number): Promise<TreeMemory> {
  await Bun.sleep((QUIET_READINGS + 1) * READING_MS);
  await settled(pid);
  return treeMemory(pid);
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
  let idleMemory: TreeMemory = { rssMb: 0, anonMb: 0 };
  try {
    const warmup = await createLinkOver(server);
    await drive(`${server.url}/c/${warmup.slug}${QUERY}`, WARMUP);
    settleSeconds = await settled(pid);
    idleMemory = await restingMemory(pid);
    const measured = await createLinkOver(server);
    linkId = measured.id;
    const memory = canReadMemory(pid) ? sampleMemory(pid) : null;
    load = await drive(`${server.url}/c/${measured.slug}${QUERY}`, DURATION);
    // What the burst leaves behind: the writer's drain, then the mirror's copy, then idle.
    const loadEnded = performance.now();
    drainSeconds = await backlogDrained(server.url);
    await settled(pid, AFTER_LOAD_TIMEOUT_MS);
    afterSeconds = (performance.now() - loadEnded) / 1000;
    // The burst's peak includes the drain and the mirror's copy; settled is read after IDLE more.
    if (memory) peakMb = memory.stop().peakMb;
    await Bun.sleep(IDLE * 1000);
    if (memory) settledMemory = await restingMemory(pid);
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
  return { load, stored, drainSeconds, afterSeconds, stopSeconds, settleSeconds, peakMb, settledMemory, idleMemory };
}

const reference = await bare();
console.error(`bare: ${JSON.stringify(summary(reference))}`);
const targets = await eachTarget(async (url) => {
  const { load, stored, drainSeconds, afterSeconds, stopSeconds, settleSeconds, peakMb, settledMemory, idleMemory } = await service(url);
  return {
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
    rss_idle_mb: Math.round(idleMemory.rssMb),
    rss_peak_mb: Math.round(peakMb),
    rss_settled_mb: Math.round(settledMemory.rssMb),
    anon_settled_mb: Math.round(settledMemory.anonMb),
  };
});

console.log(
  JSON.stringify({
    bench: 'redirect',
    tool: 'wrk',
    connections: CONNECTIONS,
    duration_s: DURATION,
    idle_s: IDLE,
    // The machine's load as the run ends: figures from a busy machine are not quiet-machine figures.
    load_avg: loadavg().map((load) => round(load, 2)),
    bare: summary(reference),
    ...targets,
  }),
);
