import postgres from 'postgres';
const url = process.argv[2]!;
const sql = postgres(url, { max: 1, onnotice: () => {} });
const [{ org_id, app_id }] = await sql`SELECT org_id, id AS app_id FROM apps LIMIT 1`;
const { findSignalTouches } = await import('./src/attribution/attribution.repo');
const now = new Date();
const day = 86400000;
const mode = process.argv[3] ?? 'auto';
const spy = { query: async (text: string, params: any[]) => {
  await sql.unsafe(`SET plan_cache_mode = ${mode}`);
  const t0 = performance.now();
  const rows = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params as any);
  console.log(rows.map((r: any) => r['QUERY PLAN']).filter((l: string) => /Execution|Planning|Limit|Index|Scan|Buffers/.test(l)).slice(0, 40).join('\n'));
  return [];
}, exec: async () => {} } as any;
await findSignalTouches(spy, { orgId: org_id, appId: app_id, ip: '10.0.1.2', ipRange: { from: new Date(+now - 7 * day), to: now, after: null }, ipDayHashes: ['a', 'b', 'c'], viewRange: { from: new Date(+now - day), to: now, after: null }, householdHash: 'zzz', householdRange: { from: new Date(+now - 7 * day), to: now, after: null } });
await sql.end();
