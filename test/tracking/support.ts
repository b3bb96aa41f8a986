import type { Db } from '../../src/db/db';
import type { ClickPipeline } from '../../src/tracking/pipeline/click-pipeline';
import type { ClickWriter } from '../../src/tracking/pipeline/click-writer';
import { newId } from '../../src/shared/ids';
import type { ClickRecord } from '../../src/tracking/click.model';
import type { ImpressionRecord } from '../../src/tracking/tracking.model';

/** A click as the redirect would journal it, before enrichment. */
export function makeClick(orgId: string, overrides: Partial<ClickRecord> = {}): ClickRecord {
  return {
    id: newId(), org_id: orgId, link_id: null, campaign_id: null, created_at: new Date().toISOString(),
    gclid: null, gbraid: null, wbraid: null, campaign_ext_id: null, ad_group_ext_id: null, creative_id: null,
    keyword: null, match_type: null, network: null, device: null, placement: null, target_id: null,
    loc_physical_ms: null, loc_interest_ms: null, ad_position: null, next_hop_url: 'https://lp.example.com/?svc_click_id=x',
    transparent_param_present: false, force_transparent: false, is_bot: false, latency_ms: 0, ip: '8.8.8.8',
    ip_day_hash: null, household_hash: null, user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)', referer: null,
    country: null, region: null, os_family: null, os_version: null, device_type: null, drop_reason: null, params: { utm_source: 'x' },
    route: null, risk_score: 0, risk_reasons: [],
    ...overrides,
  };
}

/** Traffic that keeps arriving: `perRound` clicks of `orgId` every `everyMs` for `ms`. Resolves to how many. */
export async function arrive(pipeline: ClickPipeline, orgId: string, { ms, perRound, everyMs }: { ms: number; perRound: number; everyMs: number }): Promise<number> {
  let recorded = 0;
  for (const until = performance.now() + ms; performance.now() < until; ) {
    for (let i = 0; i < perRound; i++) pipeline.recordClick(makeClick(orgId));
    recorded += perRound;
    await Bun.sleep(everyMs);
  }
  return recorded;
}

export function makeImpression(orgId: string, overrides: Partial<ImpressionRecord> = {}): ImpressionRecord {
  return {
    id: newId(), org_id: orgId, campaign_id: null, app_id: null, creative_id: null, placement: null, partner: null,
    ip_day_hash: 'd'.repeat(64), household_hash: 'h'.repeat(64), user_agent: null, os: null, device_type: null,
    country: null, source: 'pixel', created_at: new Date().toISOString(),
    ...overrides,
  };
}

/** The same database, with writes refused while `down` is true (an outage the test controls). */
export function flakyDb(db: Db): Db & { down: boolean } {
  const wrapped = Object.create(db) as Db & { down: boolean };
  wrapped.down = false;
  const unavailable = () => Promise.reject(new Error('database unavailable'));
  wrapped.query = (...args) => (wrapped.down ? unavailable() : db.query(...args));
  wrapped.copyFrom = (...args) => (wrapped.down ? unavailable() : db.copyFrom(...args));
  return wrapped;
}

export async function countRows(db: Db, table: 'clicks' | 'impressions', orgId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [orgId]);
  return rows[0]!.n;
}

/**
 * A writer that takes `ms` for every batch, whatever its size, one batch at a time however many
 * it is handed at once (a writer whose rate is fixed), and counts what it was given.
 */
export function timedWriter(ms: number) {
  const written = { records: 0, batches: 0 };
  let previous: Promise<unknown> = Promise.resolve();
  const writer = (): ClickWriter => ({
    write: (_lines, count) => {
      const done = previous.then(async () => {
        await Bun.sleep(ms);
        written.records += count;
        written.batches++;
      });
      previous = done;
      return done;
    },
    close: async () => {},
  });
  return { writer, written };
}

/** Enough of a Postgres Db for a pipeline whose writer is a stand-in: it picks the store's defaults. */
export const fakePostgres = { kind: 'postgres', syncCommits: async () => {} } as Db;
