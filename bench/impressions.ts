/**
 * POST /api/v1/impressions with 5000 impressions a call, on Postgres (a throwaway database on
 * DATABASE_URL, else the local server), through the app's own dispatch in this process (no
 * socket): body parse, validation, API key, campaign lookup, hashing, the INSERT and its audit
 * row; and the service alone (importImpressions on parsed rows: no HTTP, no validation). The
 * reference in the same run is a plain COPY of 5000 finished rows into the same table. Prints
 * one JSON line. BENCH_RUNS (20) rounds of the three, alternating, after 3 rounds of warm-up.
 */
import { createServing } from '../src/app';
import { issueApiKey } from '../src/auth/api-keys';
import type { Impression } from '../src/growth/impressions.model';
import { importImpressions } from '../src/growth/impressions.service';
import { loadConfig } from '../src/config/config';
import { copyText } from '../src/db/copy-text';
import { migrate } from '../src/db/migrate';
import { openPostgres } from '../src/db/postgres';
import { newId } from '../src/shared/ids';
import { createServices } from '../src/services';
import { IMPRESSION_COLUMNS, type ImpressionRecord } from '../src/tracking/tracking.model';
import { scratchDir } from './scratch-dir';
import { throwawayDatabase } from './throwaway-database';

const ROWS = 5000;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const WARMUP = 3;
const SECRET = 'bench-session-secret-that-is-long-enough-0123456789';

const database = await throwawayDatabase();
const db = openPostgres(database.url, { max: 4 });
await migrate(db);
const orgId = newId();
await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [orgId, 'Bench']);
await db.query(`INSERT INTO campaigns (id, org_id, name, external_id) SELECT 'cmp' || g, $1, 'Campaign ' || g, 'ext' || g FROM generate_series(1, 50) g`, [orgId]);
const key = await issueApiKey(db, { orgId, name: 'bench' });

const config = loadConfig({
  DATA_DIR: scratchDir('impressions'),
  DATABASE_URL: database.url,
  BASE_URL: 'http://api.bench.local',
  TRACKING_URL: 'http://track.bench.local',
  SESSION_SECRET: SECRET,
  INGEST_SECRET: 'bench-ingest-secret-0123456789',
  RATE_LIMIT: 'off',
});
const services = await createServices(config, db, { mirror: false, workers: false });
const serving = createServing(services);

const AGENTS = ['Roku/DVP-12.5 (12.5.0.4186)', 'Mozilla/5.0 (SMART-TV; Linux; Tizen 7.0) AppleWebKit/537.36', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)'];

/** A partner's export: distinct addresses, campaigns by id and by external id, a day of timestamps. */
function batch(run: number): Impression[] {
  const now = Date.now();
  return Array.from({ length: ROWS }, (_, i) => ({
    ...(i % 2 ? { campaign_id: `cmp${(i % 50) + 1}` } : { campaign_external_id: `ext${(i % 50) + 1}` }),
    partner: 'ctv-exchange',
    creative_id: `cr-${i % 20}`,
    placement: 'pre-roll',
    ip: i % 10 === 0 ? `2001:db8:${run.toString(16)}:${i.toString(16)}::1` : `10.${run & 255}.${i >> 8}.${i & 255}`,
    user_agent: AGENTS[i % AGENTS.length]!,
    os: 'Roku OS',
    device_type: 'smarttv',
    ...(i % 3 ? { country: 'US' } : {}),
    ts: new Date(now - ((i * 7919) % 86_400) * 1000).toISOString(),
  }));
}

/** The same rows as the service stores them, for the reference COPY. */
function records(run: number): ImpressionRecord[] {
  const now = new Date();
  return batch(run).map((row) => ({
    id: newId(),
    org_id: orgId,
    campaign_id: row.campaign_id ?? null,
    app_id: null,
    creative_id: row.creative_id ?? null,
    placement: row.placement ?? null,
    partner: row.partner ?? null,
    ip_day_hash: services.ipHasher.ipDay(row.ip, now),
    household_hash: services.ipHasher.household(row.ip),
    user_agent: row.user_agent ?? null,
    os: row.os ?? null,
    device_type: row.device_type ?? null,
    country: row.country ?? null,
    source: 'import',
    created_at: row.ts ?? now.toISOString(),
  }));
}

async function timeHttp(run: number): Promise<number> {
  const body = JSON.stringify({ impressions: batch(run) });
  const start = performance.now();
  const response = await serving.fetch(
    new Request('http://api.bench.local/api/v1/impressions', { method: 'POST', headers: { authorization: `Bearer ${key.api_key}`, 'content-type': 'application/json' }, body }),
  );
  const answer = (await response.json()) as { accepted?: number };
  const ms = performance.now() - start;
  if (response.status !== 200 || answer.accepted !== ROWS) throw new Error(`import answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return ms;
}

async function timeService(run: number): Promise<number> {
  const rows = batch(run);
  const start = performance.now();
  const { accepted } = await importImpressions(services, { orgId, keyId: key.id }, rows);
  const ms = performance.now() - start;
  if (accepted !== ROWS) throw new Error(`the service accepted ${accepted}`);
  return ms;
}

async function timeCopy(run: number): Promise<number> {
  const text = copyText(records(run) as unknown as Record<string, unknown>[], IMPRESSION_COLUMNS);
  const start = performance.now();
  await db.copyFrom('impressions', IMPRESSION_COLUMNS, text);
  return performance.now() - start;
}

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { p50_ms: round(at(0.5)), p90_ms: round(at(0.9)), min_ms: round(sorted[0]!), max_ms: round(sorted[sorted.length - 1]!) };
};

try {
  for (let run = 0; run < WARMUP; run++) {
    await timeHttp(run);
    await timeService(run);
    await timeCopy(run);
  }
  const http: number[] = [];
  const service: number[] = [];
  const copy: number[] = [];
  for (let run = WARMUP; run < WARMUP + RUNS; run++) {
    http.push(await timeHttp(run));
    service.push(await timeService(run));
    copy.push(await timeCopy(run));
  }
  const [stored] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM impressions');
  const result = {
    bench: 'impressions',
    level: 'http-in-process',
    rows_per_call: ROWS,
    runs: RUNS,
    import: stats(http),
    service: stats(service),
    copy_reference: stats(copy),
    ratio_p50: Math.round((stats(http).p50_ms / stats(copy).p50_ms) * 100) / 100,
    stored: stored!.n,
  };
  console.log(JSON.stringify(result));
} finally {
  await services.stop();
  await db.close();
  await database.drop();
}
