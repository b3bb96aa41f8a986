/**
 * POST /api/sdk/v1/install on Postgres holding 1M clicks and 1M impressions, through the real
 * server process, 32 connections. Prints one JSON line: throughput, p50, p99, the attribution
 * methods the mix produced, and a bare Bun.serve reference measured the same way in the same run.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test bun bench/install.ts
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=32 BENCH_ROWS=1000000 (defaults)
 *   BENCH_KEEP=1 keeps the seeded database (its URL goes to stderr) for EXPLAIN sessions.
 *   BENCH_CPU_PROFILE=dir writes the server's CPU profile (bun --cpu-prof) into dir.
 */
import postgres from 'postgres';
import { throwawayDatabase } from './throwaway-database';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { generateSdkKey } from '../src/auth/sdk-keys';
import { migrate } from '../src/db/migrate';
import { openPostgres } from '../src/db/postgres';
import { createIpHasher } from '../src/shared/crypto/ip-hash';
import { runLoad, type LoadResult, type Profile } from './install-load';
import { scratchDir } from './scratch-dir';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECRET = 'bench-session-secret-that-is-long-enough-0123456789';
/** Impressions hashed by the server's own key, so view-through requests match; the rest is volume. */
const MATCHABLE_IMPRESSIONS = 5000;
const IPS_WITH_CLICKS = Math.max(1, Math.floor(ROWS / 4));

const clickIp = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
const impressionIp = (n: number) => `172.20.${(n >> 8) & 255}.${n & 255}`;


/** The organization, its app, 50 campaigns, 500 links (every fifth with a deep link), the clicks and impressions. */
async function seed(url: string) {
  const db = openPostgres(url, { max: 4 });
  await migrate(db);
  const orgId = ulid();
  const appId = ulid();
  const sdk = generateSdkKey();
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [orgId, 'Bench']);
  await db.query(`INSERT INTO apps (id, org_id, name, platform, sdk_key, sdk_key_hash) VALUES ($1, $2, 'Bench app', 'android', $3, $4)`, [appId, orgId, sdk.key, sdk.hash]);
  await db.query(`INSERT INTO campaigns (id, org_id, app_id, name) SELECT 'cmp' || g, $1, $2, 'Campaign ' || g FROM generate_series(1, 50) g`, [orgId, appId]);
  await db.query(
    `INSERT INTO links (id, org_id, slug, campaign_id, destination, deep_link_path)
     SELECT 'lnk' || g, $1, 'bench' || g, 'cmp' || (g % 50 + 1), 'https://shop.example.com/p/' || g, CASE WHEN g % 5 = 0 THEN '/product/' || g END
     FROM generate_series(1, 500) g`,
    [orgId],
  );
  // Four clicks per address spread over the last 7 days; even rows Android, odd rows iOS.
  await db.query(
    `INSERT INTO clicks (id, org_id, link_id, campaign_id, created_at, next_hop_url, ip, ip_day_hash, household_hash, os_family, os_version, device_type)
     SELECT 'clk' || lpad(g::text, 23, '0'), $1, 'lnk' || (g % 500 + 1), 'cmp' || (g % 50 + 1),
       now() - ((g::bigint * 7919) % 604800) * interval '1 second', 'https://shop.example.com/',
       '10.' || ((g % $2) >> 16 & 255) || '.' || ((g % $2) >> 8 & 255) || '.' || ((g % $2) & 255),
       md5('d' || g), md5('h' || ((g % $2) >> 8)),
       CASE WHEN g % 2 = 0 THEN 'Android' ELSE 'iOS' END, CASE WHEN g % 2 = 0 THEN '14' ELSE '17.4' END, 'mobile'
     FROM generate_series(1, $3::int) g`,
    [orgId, IPS_WITH_CLICKS, ROWS],
  );
  await db.query(
    `INSERT INTO impressions (id, org_id, campaign_id, ip_day_hash, household_hash, created_at)
     SELECT 'imp' || lpad(g::text, 23, '0'), $1, 'cmp' || (g % 50 + 1), md5('i' || g), md5('ih' || (g >> 8)),
       now() - ((g::bigint * 7919) % 172800) * interval '1 second'
     FROM generate_series(1, $2::int) g`,
    [orgId, ROWS - MATCHABLE_IMPRESSIONS],
  );
  const hasher = createIpHasher(SECRET);
  const now = Date.now();
  const rows = Array.from({ length: MATCHABLE_IMPRESSIONS }, (_, n) => {
    const at = new Date(now - ((n * 7919) % 43200) * 1000);
    return [`impm${String(n).padStart(22, '0')}`, orgId, `cmp${(n % 50) + 1}`, hasher.ipDay(impressionIp(n), at), hasher.household(impressionIp(n)), at.toISOString()];
  });
  await db.bulkInsert('impressions', ['id', 'org_id', 'campaign_id', 'ip_day_hash', 'household_hash', 'created_at'], rows);
  // The seeded rows stand for weeks of history autovacuum has long since visited: without VACUUM,
  // every install's reads would dirty just-loaded pages to set hint bits, and the run would
  // measure the bulk load's aftermath.
  await db.exec('VACUUM ANALYZE');
  // And the load's writes reach the disk now, not by a checkpoint in the middle of the run.
  await db.exec('CHECKPOINT');
  await db.close();
  return { sdkKey: sdk.key };
}

/** A quarter each: a launch click id, an address with recent Android clicks, an address with an impression, nothing. */
function profiles(): Profile[] {
  const list: Profile[] = [];
  for (let i = 0; i < 4000; i += 1) {
    const g = 2 * (1 + ((i * 104729) % (ROWS / 2 - 1)));
    const recentAndroid = 2 * (1 + ((i * 131) % Math.max(1, Math.floor(IPS_WITH_CLICKS / 2) - 1)));
    switch (i % 4) {
      case 0:
        list.push({ ip: `198.18.${(i >> 8) & 255}.${i & 255}`, clickId: `clk${String(g).padStart(23, '0')}` });
        break;
      case 1:
        list.push({ ip: clickIp(recentAndroid % IPS_WITH_CLICKS) });
        break;
      case 2:
        list.push({ ip: impressionIp(i % MATCHABLE_IMPRESSIONS) });
        break;
      default:
        list.push({ ip: `198.19.${(i >> 8) & 255}.${i & 255}` });
    }
  }
  return list;
}

async function startServer(databaseUrl: string) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const profileDir = process.env.BENCH_CPU_PROFILE;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const proc = Bun.spawn([process.execPath, ...profile, join(import.meta.dir, '..', 'src', 'main.ts')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DATA_DIR: scratchDir('service'),
      SESSION_SECRET: SECRET,
      TRUST_PROXY: '1',
      RATE_LIMIT: 'off',
      // The mirror's first copy of 2M seeded rows would compete for the CPU; installs are what is measured.
      MIRROR_INTERVAL_MS: '0',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
    // Killed, not stopped: a graceful stop would first copy the 2M seeded rows to DuckDB, and the
    // database is dropped anyway. A profiled server is stopped, so that it writes its profile.
    if ((await fetch(`${url}/api/health`).catch(() => null))?.ok) return { url, stop: async () => (proc.kill(profileDir ? 'SIGTERM' : 'SIGKILL'), await proc.exited) };
    await Bun.sleep(100);
  }
  proc.kill('SIGKILL');
  throw new Error('server did not become healthy');
}

/** The ceiling of this machine for this load generator: a bare server answering a constant install body. */
async function reference(sdkKey: string, list: Profile[]): Promise<LoadResult> {
  const body = JSON.stringify({ install_id: ulid(), attribution: { method: 'ORGANIC', campaign: null, click_id: null, deep_link_path: null }, is_reattribution: false });
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async (request) => (await request.text(), new Response(body, { status: 201, headers: { 'content-type': 'application/json' } })) });
  try {
    return await runLoad({ url: `http://127.0.0.1:${server.port}`, path: '/api/sdk/v1/install', sdkKey, connections: CONNECTIONS, durationSeconds: DURATION, profiles: list });
  } finally {
    server.stop(true);
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

async function main() {
  const database = await throwawayDatabase();
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const seedStarted = performance.now();
    const { sdkKey } = await seed(database.url);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    server = await startServer(database.url);
    const list = profiles();
    const load = { url: server.url, path: '/api/sdk/v1/install', sdkKey, connections: CONNECTIONS, profiles: list };
    await runLoad({ ...load, durationSeconds: 3 }); // warm-up: prepared statements, JIT, caches
    const result = await runLoad({ ...load, durationSeconds: DURATION });
    const ref = await reference(sdkKey, list);
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    const methods = Object.fromEntries(
      (await sql`SELECT attribution_method, count(*)::int AS n FROM installs GROUP BY 1 ORDER BY 1`).map((row) => [row.attribution_method, row.n]),
    );
    await sql.end();
    console.log(
      JSON.stringify({
        bench: 'install',
        tool: result.tool,
        clicks: ROWS,
        impressions: ROWS,
        connections: CONNECTIONS,
        duration_s: DURATION,
        requests: result.requests,
        req_per_s: round(result.reqPerSec),
        p50_ms: round(result.p50Ms),
        p99_ms: round(result.p99Ms),
        non_2xx: result.non2xx,
        errors: result.errors,
        target_p99_ms: 15,
        methods,
        reference: { req_per_s: round(ref.reqPerSec), p50_ms: round(ref.p50Ms), p99_ms: round(ref.p99Ms) },
        ratio_req_per_s: round(result.reqPerSec / ref.reqPerSec),
        seed_s: round(seedSeconds),
      }),
    );
  } finally {
    await server?.stop();
    if (process.env.BENCH_KEEP === '1') {
      console.error(`kept ${database.url}`);
      await database.keep();
    } else await database.drop();
  }
}

await main();
