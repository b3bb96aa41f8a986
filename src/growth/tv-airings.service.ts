import type { Mirror } from '../analytics/mirror/mirror';
import type { ApiKeyPrincipal } from '../auth/api-keys';
import { recordAudit } from '../auth/audit';
import type { Db, Queryable } from '../db/db';
import { validationError } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { newId, type Clock } from '../shared/ids';
import type { ClickPipeline } from '../tracking/pipeline/click-pipeline';
import { resolveCampaigns } from './campaign-refs';
import { attributeSpikes, BASELINE_LOOKBACK_MIN, overlapGroups, planSpikes, type Interval, type Spot, type SpotResult } from './spike';
import { DEFAULT_AIRINGS_LIMIT, DEFAULT_WINDOW_MIN, type TvAiring, type TvAiringsQuery, type TvAiringsResult, type TvAiringView } from './tv-airings.model';
import { AIRINGS_KEYSET, countTraffic, findAiringsBetween, insertAirings, listAirings, lockOrgAirings, updateAiringResults, type AiringRow, type StoredAiring } from './tv-airings.repo';
import { instantOf } from '../http/timestamp-field';

export interface TvAiringDeps {
  db: Db;
  clock: Clock;
  mirror: Pick<Mirror, 'catchUp' | 'query'>;
  /** This node's clicks still on their way to the database are written before the count. */
  clickPipeline: Pick<ClickPipeline, 'flush'>;
}

const MINUTE_MS = 60_000;
const LOOKBACK_MS = BASELINE_LOOKBACK_MIN * MINUTE_MS;
const MAX_WINDOW_MS = 60 * MINUTE_MS;
export const WINDOW_NOT_OVER = 'the attribution window has not ended yet: aired_at plus window_min is in the future';

/** Regions are compared trimmed and lower-cased (docs/growth-imports.md, "Regions"). */
export const regionKey = (region: string | null) => (region === null ? null : region.trim().toLowerCase());

const windowOf = (spot: Spot): Interval => ({ from: spot.airedAt, to: spot.airedAt + spot.windowMin * MINUTE_MS });

/**
 * POST /api/v1/tv-airings: checks every airing, brings the mirror up to date, then in one
 * transaction attributes the airings with those stored near them and stores the lot. Airings
 * stored earlier whose spike or baseline an imported one now shares are rewritten.
 */
export async function importAirings(deps: TvAiringDeps, principal: ApiKeyPrincipal, rows: readonly TvAiring[]): Promise<TvAiringsResult> {
  const now = deps.clock().getTime();
  const problems: Record<string, string[]> = {};
  const spots = rows.map((row, index): Spot => {
    const airedAt = instantOf(row.aired_at, `airings.${index}.aired_at`).getTime();
    const windowMin = row.window_min ?? DEFAULT_WINDOW_MIN;
    if (airedAt + windowMin * MINUTE_MS > now) problems[`airings.${index}.aired_at`] = [WINDOW_NOT_OVER];
    return { airedAt, windowMin, region: regionKey(row.region ?? null) };
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  const campaigns = await resolveCampaigns(deps.db, principal.orgId, rows);
  await deps.clickPipeline.flush();
  await deps.mirror.catchUp();

  return deps.db.transaction(async (tx) => {
    await lockOrgAirings(tx, principal.orgId);
    const { stored, affected } = await workingSet(tx, principal.orgId, spots);
    const storedSpots = stored.map(spotOf);
    const planned = [...spots.map((_, index) => index), ...affected.map((index) => spots.length + index)];
    const all = [...spots, ...storedSpots];
    const plan = planSpikes(planned.map((index) => all[index]!), all.map(windowOf));
    const results = attributeSpikes(plan, await countTraffic(deps.mirror, principal.orgId, plan.requests));
    const resultOf = new Map(planned.map((index, position) => [index, results[position]!]));

    const airings = rows.map((row, index) => ({
      id: newId(),
      network: row.network,
      program: row.program ?? null,
      region: row.region ?? null,
      aired_at: new Date(spots[index]!.airedAt).toISOString(),
      window_min: spots[index]!.windowMin,
      spot_length_sec: row.spot_length_sec ?? null,
      cost: row.cost ?? null,
      campaign_id: campaigns[index]?.id ?? null,
      ...resultColumns(resultOf.get(index)!),
    }));
    await insertAirings(tx, principal.orgId, airings);
    const rewritten = affected.map((index) => ({ id: stored[index]!.id, ...resultColumns(resultOf.get(spots.length + index)!) }));
    await updateAiringResults(tx, principal.orgId, rewritten);
    const attributed = airings.filter((airing) => airing.attributed).length;
    await recordAudit(tx, { orgId: principal.orgId, apiKeyId: principal.keyId }, {
      action: 'import',
      entity: 'tv_airing',
      detail: { accepted: airings.length, attributed, rewritten: rewritten.length },
    });
    return { accepted: airings.length, attributed_airings: attributed };
  });
}

/** The columns a spot's result is stored in. */
function resultColumns(result: SpotResult) {
  return { baseline_per_min: result.baselinePerMin, window_count: result.windowCount, lift: result.lift, attributed: result.attributed };
}

function spotOf(airing: StoredAiring): Spot {
  return { airedAt: new Date(airing.aired_at).getTime(), windowMin: airing.window_min, region: regionKey(airing.region) };
}

/**
 * The stored airings near the new ones, and which of them (indices into `stored`) must be
 * attributed again: those in an overlap group with a new airing, and those whose baseline a new
 * window now covers, with the rest of their groups. The range read grows until every such group
 * and the baseline lookback before it are inside it.
 */
async function workingSet(tx: Queryable, orgId: string, spots: readonly Spot[]): Promise<{ stored: StoredAiring[]; affected: number[] }> {
  const windows = spots.map(windowOf);
  const reach = mergedIntervals(windows.map((w) => ({ from: w.from, to: w.to + LOOKBACK_MS })));
  let from = earliest(windows.map((w) => w.from)) - LOOKBACK_MS - MAX_WINDOW_MS;
  let to = latest(windows.map((w) => w.to)) + LOOKBACK_MS;
  for (;;) {
    const stored = await findAiringsBetween(tx, orgId, new Date(from), new Date(to));
    const all = [...spots, ...stored.map(spotOf)];
    // A stored airing's baseline looks back from its start: a new window ending up to the lookback earlier reaches it.
    const touched = (index: number) => index < spots.length || reach.some((r) => all[index]!.airedAt > r.from && all[index]!.airedAt < r.to);
    const groups = overlapGroups(all).filter((group) => group.some(touched));
    const members = groups.flat();
    const start = earliest(members.map((index) => all[index]!.airedAt));
    const end = latest(members.map((index) => windowOf(all[index]!).to));
    const wantedFrom = start - LOOKBACK_MS - MAX_WINDOW_MS;
    if (wantedFrom >= from && end <= to) {
      const affected = members.filter((index) => index >= spots.length).map((index) => index - spots.length);
      return { stored, affected };
    }
    from = Math.min(from, wantedFrom);
    to = Math.max(to, end);
  }
}

const earliest = (times: readonly number[]) => times.reduce((a, b) => Math.min(a, b), Infinity);
const latest = (times: readonly number[]) => times.reduce((a, b) => Math.max(a, b), -Infinity);

/** Overlapping or touching intervals joined, in start order. */
function mergedIntervals(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.from - b.from);
  const merged: Interval[] = [];
  for (const interval of sorted) {
    const last = merged[merged.length - 1];
    if (last && interval.from <= last.to) last.to = Math.max(last.to, interval.to);
    else merged.push({ ...interval });
  }
  return merged;
}

/** GET /api/v1/tv-airings: the organization's airings, newest airing first. */
export function listOrgAirings({ db }: { db: Queryable }, orgId: string, query: TvAiringsQuery): Promise<Page<TvAiringView>> {
  return readPage({
    keyset: AIRINGS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_AIRINGS_LIMIT,
    fetch: (page) => listAirings(db, orgId, page),
    keyOf: (row) => [row.id],
    view: toView,
  });
}

function toView(row: AiringRow): TvAiringView {
  const cost = row.cost === null ? null : Number(row.cost);
  return {
    id: row.id,
    network: row.network,
    program: row.program,
    region: row.region,
    aired_at: new Date(row.aired_at).toISOString(),
    window_min: row.window_min,
    spot_length_sec: row.spot_length_sec,
    cost,
    campaign_id: row.campaign_id,
    baseline_per_min: row.baseline_per_min,
    window_count: row.window_count,
    lift: row.lift,
    attributed: row.attributed,
    cost_per_lift: row.attributed && cost !== null && row.lift > 0 ? cost / row.lift : null,
  };
}
