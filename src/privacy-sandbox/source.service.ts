import { Value } from '@sinclair/typebox/value';
import type { Db } from '../db/db';
import type { Clock } from '../shared/ids';
import type { CompiledLink } from '../tracking/redirect/link-cache/compiled-link';
import type { LinkCache } from '../tracking/redirect/link-cache/link-cache';
import { campaignKeyPiece, hash64Hex, randomSourceEventId } from './key-pieces';
import { SourceRegistration } from './privacy-sandbox.model';
import { findSourceCampaign, insertSource, type SourceCampaignRow } from './privacy-sandbox.repo';
import { destinationSite } from './site';

/**
 * GET register-source: which link or campaign the source stands for, its destination site, and
 * the header (docs/privacy-sandbox.md, "Register a source"). Anything unknown or mismatched
 * registers nothing, so the endpoint tells no one which slugs or campaigns exist.
 */

export interface SourceDeps {
  db: Db;
  /** The redirect's link cache: a slug resolves on the request's host exactly as /c resolves it. */
  linkCache: Pick<LinkCache, 'lookup'>;
  clock: Clock;
}

export interface SourceRequest {
  host: string;
  link?: string;
  campaign?: string;
  /** The browser's Attribution-Reporting-Eligible header, if sent. */
  eligible: string | null;
}

/** 30 days, the API's longest: a source lasts as long as the longest click lookback an app may set. */
export const SOURCE_EXPIRY_SECONDS = 30 * 24 * 60 * 60;
/** A click (navigation source) outranks a view when both could take a conversion. */
export const NAVIGATION_PRIORITY = 100;
export const VIEW_PRIORITY = 0;
/** Draws of a fresh id before giving up: a 64-bit collision is already vanishingly rare. */
const ID_ATTEMPTS = 5;

/** The header value to send, or null: nothing to register, and nothing was recorded. */
export async function registerSource(deps: SourceDeps, request: SourceRequest): Promise<string | null> {
  const resolved = await resolveSource(deps, request);
  if (!resolved) return null;
  const destination = pickDestination(resolved.link, resolved.campaign);
  if (!destination) return null;
  const campaignId = resolved.campaign?.id ?? null;
  const createdAt = deps.clock();
  for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
    const sourceEventId = randomSourceEventId();
    const row = { sourceEventId, orgId: resolved.orgId, linkId: resolved.link?.id ?? null, campaignId, destination, createdAt };
    if (await insertSource(deps.db, row)) {
      return JSON.stringify(sourceRegistration({ sourceEventId, destination, campaignId, linkId: row.linkId, eligible: request.eligible }));
    }
  }
  throw new Error(`register-source: no free source_event_id after ${ID_ATTEMPTS} draws`);
}

interface ResolvedSource {
  orgId: string;
  link: CompiledLink | null;
  campaign: SourceCampaignRow | null;
}

/**
 * Every parameter given must name something: an active link on this host, a campaign by id, both
 * of one organization, and a link tied to a campaign only with that campaign. A link's own
 * campaign stands in when no campaign is named.
 */
async function resolveSource(deps: SourceDeps, request: SourceRequest): Promise<ResolvedSource | null> {
  const slug = present(request.link);
  const campaignParam = present(request.campaign);
  if (slug === undefined && campaignParam === undefined) return null;
  let link: CompiledLink | null = null;
  if (slug !== undefined) {
    link = await deps.linkCache.lookup(request.host, slug);
    if (!link || link.status !== 'active') return null;
  }
  const campaignId = campaignParam ?? link?.campaignId ?? undefined;
  let campaign: SourceCampaignRow | null = null;
  if (campaignId !== undefined) {
    // No stored id holds U+0000, and Postgres would refuse the parameter.
    campaign = campaignId.includes('\0') ? null : await findSourceCampaign(deps.db, campaignId);
    if (!campaign) return null;
  }
  if (link && campaign && (link.orgId !== campaign.org_id || (link.campaignId !== null && link.campaignId !== campaign.id))) return null;
  return { orgId: link?.orgId ?? campaign!.org_id, link, campaign };
}

/** The first usable site: the link's destination, the campaign's newest link, the campaign's app. */
function pickDestination(link: CompiledLink | null, campaign: SourceCampaignRow | null): string | null {
  const candidates = [link?.destination, ...(campaign?.link_destinations ?? []), campaign?.app_url];
  for (const candidate of candidates) {
    const site = candidate ? destinationSite(candidate) : null;
    if (site) return site;
  }
  return null;
}

export interface SourceFields {
  sourceEventId: string;
  destination: string;
  campaignId: string | null;
  linkId: string | null;
  eligible: string | null;
}

/** The header's JSON, checked against its schema: a malformed header would be dropped whole by the browser. */
export function sourceRegistration(fields: SourceFields): SourceRegistration {
  const filterData: Record<string, string[]> = {};
  const aggregationKeys: Record<string, string> = {};
  if (fields.campaignId !== null) {
    filterData.campaign = [hash64Hex(fields.campaignId)];
    aggregationKeys.campaign = campaignKeyPiece(fields.campaignId);
  }
  if (fields.linkId !== null) filterData.link = [hash64Hex(fields.linkId)];
  const registration: SourceRegistration = {
    source_event_id: fields.sourceEventId,
    destination: fields.destination,
    expiry: String(SOURCE_EXPIRY_SECONDS),
    priority: String(isNavigation(fields.eligible) ? NAVIGATION_PRIORITY : VIEW_PRIORITY),
    filter_data: filterData,
    aggregation_keys: aggregationKeys,
  };
  if (!Value.Check(SourceRegistration, registration)) throw new Error('register-source: the header does not match its schema');
  return registration;
}

/** `navigation-source` among the keys of the Attribution-Reporting-Eligible dictionary. */
export function isNavigation(eligible: string | null): boolean {
  if (eligible === null) return false;
  return eligible.split(',').some((member) => member.split(';')[0]!.split('=')[0]!.trim() === 'navigation-source');
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
