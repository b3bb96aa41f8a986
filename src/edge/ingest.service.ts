import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { newId, type Clock } from '../shared/ids';
import { parseTimestamp } from '../shared/timestamp';
import { parseIp } from '../ipintel/address';
import type { ClickPipeline } from '../tracking/pipeline/click-pipeline';
import { checkHttpUrl, withClickId } from '../tracking/redirect/landing-url';
import { formDecode, parseQuery, queryOf } from '../tracking/query-string';
import type { CompiledLink } from '../tracking/redirect/link-cache/compiled-link';
import type { LinkCache } from '../tracking/redirect/link-cache/link-cache';
import { unavailable } from '../tracking/redirect/tracking.service';
import { CAPTURE_LIMITS, CAPTURED_PARAMS, CLICK_ID_PARAM, type JournaledClick } from '../tracking/tracking.model';
import { CLICK_ID_ERROR, CLICK_ID_PATTERN, IngestRow, TS_FUTURE_MS, TS_PAST_MS, type IngestResult } from './ingest.model';

export interface IngestDeps {
  linkCache: Pick<LinkCache, 'lookup'>;
  clickPipeline: Pick<ClickPipeline, 'recordClick' | 'stageWhile' | 'writeStaged' | 'stagedLosses'>;
  clock: Clock;
  /** The host a row without `domain` names (the TRACKING_URL host). */
  trackingHost: string;
}

/** A row that passed every check that needs no link. */
interface CheckedRow {
  index: number;
  host: string;
  slug: string;
  clickId: string | undefined;
  createdAt: string;
  ip: string | null;
  userAgent: string | null;
  referer: string | null;
  url: string | null;
  /** The row's ad parameters as a query string, captured by the batcher as a redirect's are. */
  query: string;
}

const CLICK_ID = new RegExp(CLICK_ID_PATTERN);
const NOT_JOURNALED = 'the click could not be journaled; send this row again';

/**
 * POST /api/ingest/clicks: each row is checked, its link found through the node's link cache,
 * and the click journaled into the same durable pipeline as /c. A row that fails is reported
 * alone; a link lookup the database cannot answer fails the call before anything is journaled.
 */
export async function ingestClicks(deps: IngestDeps, events: readonly unknown[]): Promise<IngestResult> {
  const now = deps.clock().getTime();
  const rejected: IngestResult['rejected'] = [];
  const checked: CheckedRow[] = [];
  const rowOfClickId = new Map<string, number>();
  events.forEach((row, index) => {
    const outcome = checkRow(row, index, now, deps.trackingHost);
    if (typeof outcome === 'string') return rejected.push({ index, error: outcome });
    const earlier = outcome.clickId === undefined ? undefined : rowOfClickId.get(outcome.clickId);
    if (earlier !== undefined) return rejected.push({ index, error: `click_id: repeats row ${earlier} of this batch` });
    if (outcome.clickId !== undefined) rowOfClickId.set(outcome.clickId, index);
    checked.push(outcome);
  });

  const links = await lookupLinks(deps.linkCache, checked);
  // The call's clicks are staged and written in one write (journal/staging.ts), not one write a row.
  const pipeline = deps.clickPipeline;
  const lossesBefore = pipeline.stagedLosses();
  const journaled: number[] = [];
  pipeline.stageWhile(() => {
    for (const row of checked) {
      const error = journalRow(deps, row, links.get(linkKey(row)) ?? null);
      if (error) rejected.push({ index: row.index, error });
      else journaled.push(row.index);
    }
  });
  pipeline.writeStaged();
  const lost = pipeline.stagedLosses() !== lossesBefore;
  if (lost) for (const index of journaled) rejected.push({ index, error: NOT_JOURNALED });
  rejected.sort((a, b) => a.index - b.index);
  return { accepted: lost ? 0 : journaled.length, rejected };
}

function checkRow(raw: unknown, index: number, now: number, trackingHost: string): CheckedRow | string {
  if (!Value.Check(IngestRow, raw)) return schemaErrors(raw);
  const row = raw as IngestRow;
  let createdAt = new Date(now).toISOString();
  if (row.ts != null) {
    const parsed = parseTimestamp(row.ts);
    if ('error' in parsed) return `ts: ${parsed.error}`;
    if (parsed.value.at.getTime() > now + TS_FUTURE_MS) return 'ts: must not be more than 5 minutes in the future';
    if (parsed.value.at.getTime() < now - TS_PAST_MS) return 'ts: must be within the last 30 days';
    createdAt = parsed.value.iso;
  }
  if (row.ip != null && !parseIp(row.ip)) return 'ip: must be an IPv4 or IPv6 address, or null';
  let url: string | null = null;
  let clickId = row.click_id ?? undefined;
  if (row.url != null) {
    const landing = checkHttpUrl(row.url);
    if (!landing.ok) return `url: ${landing.reason}`;
    url = landing.url;
    // The visitor already went to `url`: an id it carries is the one a conversion will name.
    const carried = clickIdIn(url);
    if (carried !== undefined) {
      if (!CLICK_ID.test(carried)) return `url: its ${CLICK_ID_PARAM} ${CLICK_ID_ERROR}`;
      if (clickId !== undefined && carried !== clickId) return `url: its ${CLICK_ID_PARAM} differs from click_id`;
      clickId = carried;
    }
  }
  return {
    index,
    host: row.domain ?? trackingHost,
    slug: row.slug,
    clickId,
    createdAt,
    ip: row.ip ?? null,
    userAgent: row.user_agent?.slice(0, CAPTURE_LIMITS.headerLength) || null,
    referer: row.referer?.slice(0, CAPTURE_LIMITS.headerLength) || null,
    url,
    query: adQuery(row),
  };
}

/** Every bad field of a row, `field: message`, in one line. */
function schemaErrors(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'must be an object';
  const messages = new Map<string, string>();
  for (const issue of Value.Errors(IngestRow, raw)) {
    const field = issue.path.replace(/^\//, '').replaceAll('/', '.');
    if (messages.has(field)) continue;
    const custom = (issue.schema as { error?: unknown }).error;
    const message = issue.type === ValueErrorType.ObjectRequiredProperty ? 'is required' : typeof custom === 'string' ? custom : issue.message;
    messages.set(field, message);
  }
  return [...messages].map(([field, message]) => `${field}: ${message}`).join('; ');
}

function clickIdIn(url: string): string | undefined {
  const raw = parseQuery(queryOf(url)).get(CLICK_ID_PARAM);
  return raw === undefined ? undefined : formDecode(raw);
}

function adQuery(row: IngestRow): string {
  const query = new URLSearchParams();
  for (const name of Object.keys(CAPTURED_PARAMS) as (keyof typeof CAPTURED_PARAMS)[]) {
    const value = row[name];
    if (value != null) query.append(name, value);
  }
  return query.toString();
}

const linkKey = (row: Pick<CheckedRow, 'host' | 'slug'>) => `${row.host}\n${row.slug}`;

/** Each distinct link once; cached ones cost no query. */
async function lookupLinks(cache: IngestDeps['linkCache'], rows: readonly CheckedRow[]): Promise<Map<string, CompiledLink | null>> {
  const links = new Map<string, CompiledLink | null | Promise<CompiledLink | null>>();
  for (const row of rows) {
    const key = linkKey(row);
    if (!links.has(key)) links.set(key, cache.lookup(row.host, row.slug));
  }
  try {
    const entries = await Promise.all([...links].map(async ([key, link]) => [key, await link] as const));
    return new Map(entries);
  } catch (error) {
    console.error('edge ingest: link lookup failed', error);
    throw unavailable();
  }
}

/** Journals the row's click; the reason when it is not stored. */
function journalRow(deps: IngestDeps, row: CheckedRow, link: CompiledLink | null): string | undefined {
  if (!link) return 'link not found';
  if (link.status !== 'active') return 'link is paused';
  const landing = row.url ?? link.destination;
  if (!landing) return 'url: is required: the link has no usable destination';
  const id = row.clickId ?? newId();
  const click: JournaledClick = { id, org_id: link.orgId, link_id: link.id, created_at: row.createdAt, next_hop_url: withClickId(landing, id) };
  if (link.campaignId) click.campaign_id = link.campaignId;
  if (row.ip) click.ip = row.ip;
  if (row.userAgent) click.user_agent = row.userAgent;
  if (row.referer) click.referer = row.referer;
  try {
    deps.clickPipeline.recordClick(click, row.query || undefined);
  } catch (error) {
    console.error('edge ingest: a click could not be journaled', error);
    return NOT_JOURNALED;
  }
  return undefined;
}
