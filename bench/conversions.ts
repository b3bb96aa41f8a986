/**
 * POST /api/v1/conversions against the real server on Postgres, every request matching one of
 * one million clicks by click id. 32 connections (wrk), after a warm-up. The reference is a
 * bare Bun.serve answering a constant 201 under the same load, so the machine's own noise
 * shows in the ratio. Prints one JSON line.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test bun bench/conversions.ts
 *   BENCH_SECONDS (default 15), BENCH_CONNECTIONS (default 32), BENCH_CLICKS (default 1000000);
 *   CLICK_BACKLOG and MIRROR_INTERVAL_MS are passed through to the server (service-settings.ts).
 */
import { requireWrk } from './wrk';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from './scratch-dir';
import { serviceSettingsFromEnv } from './service-settings';
import { throwawayDatabase } from './throwaway-database';
import { createMirror } from '../src/analytics/mirror/mirror';
import { createOrganization } from '../src/auth/accounts.service';
import { issueApiKey } from '../src/auth/api-keys';
import { migrate } from '../src/db/migrate';
import { openPostgres } from '../src/db/postgres';
import { newId } from '../src/shared/ids';
import { startServer } from '../test/support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 1_000_000);

interface WrkResult {
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  socketErrors: number;
}

/** Click ids of the seeded clicks: `bench` + 8 digits, so the load script can pick any of them. */
const clickId = (i: number) => `bench${String(i).padStart(8, '0')}`;

async function wrk(url: string, apiKey: string, seconds: number): Promise<WrkResult> {
  requireWrk();
  const script = join(scratchDir('wrk'), 'conversions.lua');
  writeFileSync(
    script,
    `local tid = 0
local n = 0
local threads = {}
function setup(thread) thread:set("id", #threads + 1); table.insert(threads, thread) end
function init(args) tid = id or 0; math.randomseed(os.time() + tid * 7919) end
request = function()
  n = n + 1
  local body = string.format('{"click_id":"bench%08d","event":"purchase","value":%d.5,"currency":"USD"}', math.random(1, ${CLICKS}), n % 100)
  return wrk.format("POST", "/api/v1/conversions", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer ${apiKey}"}, body)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('RESULT {"requests":%d,"durationUs":%d,"non2xx":%d,"socketErrors":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`,
  );
  const proc = Bun.spawn(['wrk', '-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', script, url], { stdout: 'pipe', stderr: 'pipe' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (proc.exitCode !== 0 || !line) throw new Error(`wrk failed:\n${out}\n${await new Response(proc.stderr).text()}`);
  const r = JSON.parse(line.slice('RESULT '.length));
  const ms = (us: number) => Math.round(us) / 1000;
  return {
    requests: r.requests,
    reqPerSec: Math.round((r.requests / r.durationUs) * 1e6),
    p50Ms: ms(r.p50Us),
    p90Ms: ms(r.p90Us),
    p99Ms: ms(r.p99Us),
    maxMs: ms(r.maxUs),
    non2xx: r.non2xx,
    socketErrors: r.socketErrors,
  };
}

async function main() {
  const database = await throwawayDatabase();
  const db = openPostgres(database.url, { max: 4 });
  try {
    await migrate(db);
    const orgId = await createOrganization(db, 'Bench');
    const key = await issueApiKey(db, { orgId, name: 'bench' });
    const campaignId = newId();
    await db.query('INSERT INTO campaigns (id, org_id, name) VALUES ($1, $2, $3)', [campaignId, orgId, 'Bench']);
    const seedStarted = performance.now();
    await db.query(
      `INSERT INTO clicks (id, org_id, campaign_id, created_at, gclid, next_hop_url)
       SELECT 'bench' || lpad(i::text, 8, '0'), $1, $2, now() - i * interval '1 second', 'gclid-' || i, 'https://shop.example.com/landing'
         FROM generate_series(1, $3::int) AS i`,
      [orgId, campaignId, CLICKS],
    );
    // As autovacuum would long since have done to these rows (see bench/install.ts).
    await db.exec('VACUUM ANALYZE clicks');
    const seedSeconds = Math.round((performance.now() - seedStarted) / 100) / 10;
    if (clickId(CLICKS) !== (await db.query<{ id: string }>('SELECT max(id) AS id FROM clicks'))[0]!.id) throw new Error('seeding failed');
    // A running node's DuckDB mirror is caught up; copy the seeded clicks now so the measured
    // run sees only the steady-state copying of new conversions, not a million-row backfill.
    const dataDir = scratchDir('service');
    const mirrorStarted = performance.now();
    const mirror = await createMirror({ db, path: join(dataDir, 'analytics.duckdb'), intervalMs: 0 });
    await mirror.catchUp();
    await mirror.stop();
    const mirrorSeconds = Math.round((performance.now() - mirrorStarted) / 100) / 10;

    // Reference: the same load against a server that does nothing.
    const bare = Bun.serve({ port: 0, fetch: () => new Response('{"ok":true,"id":"x","matched":true}', { status: 201, headers: { 'content-type': 'application/json' } }) });
    const reference = await wrk(`http://127.0.0.1:${bare.port}`, key.api_key, Math.min(SECONDS, 5));
    bare.stop(true);

    // startServer turns the rate limit off: the spec's 300 requests a minute per IP would answer 429.
    const server = await startServer({ DATABASE_URL: database.url, ...serviceSettingsFromEnv() }, { dataDir, timeoutMs: 120_000 });
    try {
      await wrk(server.url, key.api_key, 3); // warm-up: JIT, prepared statements, pool
      const result = await wrk(server.url, key.api_key, SECONDS);
      const matched = (await db.query<{ n: number; all: number }>('SELECT count(*) FILTER (WHERE matched)::int AS n, count(*)::int AS "all" FROM conversions'))[0]!;
      console.log(
        JSON.stringify({
          bench: 'conversions',
          endpoint: 'POST /api/v1/conversions',
          clicks: CLICKS,
          connections: CONNECTIONS,
          seconds: SECONDS,
          seedSeconds,
          mirrorSeconds,
          ...result,
          matchedRatio: matched.all === 0 ? 0 : Math.round((matched.n / matched.all) * 1000) / 1000,
          targetP99Ms: 10,
          reference: { server: 'bare Bun.serve, constant 201', reqPerSec: reference.reqPerSec, p50Ms: reference.p50Ms, p99Ms: reference.p99Ms },
          ratioReqPerSec: Math.round((result.reqPerSec / reference.reqPerSec) * 1000) / 1000,
        }),
      );
    } finally {
      const code = await server.stop();
      if (code !== 0) console.error(`bench: server exited with ${code}:\n${server.output()}`);
    }
  } finally {
    await db.close();
    await database.drop();
  }
}

await main();
