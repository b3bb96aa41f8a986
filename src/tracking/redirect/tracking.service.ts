import { fieldError, HttpError, notFound, validationError } from '../../http/errors';
import { SECURITY_HEADERS } from '../../http/http.plugin';
import type { IpHasher } from '../../shared/crypto/ip-hash';
import { landingHostAllowed } from './landing-hosts';
import { newId, systemClock, type Clock } from '../../shared/ids';
import type { CampaignCache } from './campaign-cache';
import type { GeoLookup } from '../../ipintel/geo/geo-reader';
import { parseIp } from '../../ipintel/address';
import { parseUserAgent } from '../enrich/user-agent';
import type { ClickPipeline } from '../pipeline/click-pipeline';
import { clickControls, type ClickControls } from './click-query';
import { resolveLandingUrlCached, withClickId } from './landing-url';
import { decodedText, formDecode, rawQuery } from '../query-string';
import type { CompiledLink } from './link-cache/compiled-link';
import type { LinkCache } from './link-cache/link-cache';
import {
  CAPTURE_LIMITS,
  FORCE_TRANSPARENT_PARAM,
  IMPRESSION_LIMITS,
  storable,
  TRANSPARENT_GIF,
  type ImpressionRecord,
  type JournaledClick,
} from '../tracking.model';

/** What a tracking handler takes from the request; nothing of the Elysia context. */
export interface TrackingRequest {
  /** The full request URL (its host is the Host header). */
  url: string;
  ip: string;
  userAgent: string | null;
  referer: string | null;
  /** performance.now() when the request reached the handler. */
  arrival: number;
}

export interface ClickDeps {
  linkCache: LinkCache;
  clickPipeline: ClickPipeline;
  clock: Clock;
}

export const unavailable = () => new HttpError(503, { error: 'service unavailable' });

/**
 * GET /c/{slug}. A cached link is answered without touching the database: the click is
 * journaled and the 302 returned in the same tick. Only a cache miss waits for one lookup.
 */
export function handleClick(deps: ClickDeps, slug: string, request: TrackingRequest): Response | Promise<Response> {
  return withLink(deps.linkCache, slug, request, (link) => redirect(deps, link, request));
}

/** Answers with the request's link: in the same tick when cached, else after one lookup (503 when it fails). */
export function withLink<T>(linkCache: LinkCache, slug: string, request: TrackingRequest, answer: (link: CompiledLink | null) => T | Promise<T>): T | Promise<T> {
  const link = linkCache.lookup(hostOf(request.url), slug);
  if (link instanceof Promise) {
    return link.then(answer, (error) => {
      console.error(`${new URL(request.url).pathname}: link lookup failed`, error);
      throw unavailable();
    });
  }
  return answer(link);
}

function redirect(deps: ClickDeps, link: CompiledLink | null, request: TrackingRequest): Response {
  if (!link || !link.serves) throw notFound('link not found');
  return transparentRedirect(deps, link, request, clickControls(request.url));
}

/** The transparent redirect of /c, and of /l when a visible `url` overrides the link's rules. */
export function transparentRedirect(deps: ClickDeps, link: CompiledLink, request: TrackingRequest, controls: ClickControls): Response {
  const { query, landingParam, landingRaw, force } = controls;
  if (force !== undefined && formDecode(force) !== 'true') {
    throw fieldError(FORCE_TRANSPARENT_PARAM, "the only allowed value is 'true'");
  }
  let landing: string;
  if (landingParam) {
    const resolved = resolveLandingUrlCached(landingRaw);
    if (!resolved.ok) throw fieldError(landingParam, resolved.reason);
    if (link.landingHosts && !landingHostAllowed(link.landingHosts, resolved.host)) {
      throw fieldError(landingParam, "must be on one of the link's allowed landing hosts");
    }
    landing = resolved.url;
  } else if (force !== undefined) {
    throw fieldError('url', 'is required when force_transparent=true');
  } else if (link.destination) {
    landing = link.destination;
  } else {
    throw validationError({}, ['no landing URL: pass url, or give the link an http(s) destination']);
  }

  const clickId = newId();
  const location = withClickId(landing, clickId);
  const click = newClick(deps, link, request, clickId, location);
  if (landingParam) click.transparent_param_present = true;
  if (force !== undefined) click.force_transparent = true;
  journalClick(deps, click, query, request);
  return redirectTo(location);
}

/**
 * A click as the redirect journals it: only what differs from CLICK_DEFAULTS, and the query
 * string as sent (the batcher captures its parameters, pipeline/click-capture.ts), so the line
 * written before each answer is cheap to make.
 */
export function newClick(deps: Pick<ClickDeps, 'clock'>, link: CompiledLink, request: TrackingRequest, clickId: string, location: string): JournaledClick {
  const click: JournaledClick = {
    id: clickId,
    org_id: link.orgId,
    link_id: link.id,
    created_at: isoTime(deps.clock),
    next_hop_url: location,
    ip: request.ip,
  };
  if (link.campaignId) click.campaign_id = link.campaignId;
  if (request.userAgent) click.user_agent = request.userAgent.slice(0, CAPTURE_LIMITS.headerLength);
  if (request.referer) click.referer = request.referer.slice(0, CAPTURE_LIMITS.headerLength);
  return click;
}

/** Journals the click before its answer leaves: answering without it would lose an answered click. */
export function journalClick(deps: Pick<ClickDeps, 'clickPipeline'>, click: JournaledClick, query: string, request: TrackingRequest): void {
  click.latency_ms = Math.round(performance.now() - request.arrival);
  try {
    deps.clickPipeline.recordClick(click, query);
  } catch (error) {
    console.error('click redirect: the click could not be journaled', error);
    throw unavailable();
  }
}

/** The 302 of a click; Location set on one shared Headers object (below). */
export function redirectTo(location: string): Response {
  REDIRECT_HEADERS.set('Location', location);
  return new Response(null, REDIRECT_INIT);
}

/**
 * The headers of every 302, built once: a Response copies the Headers it is given, so setting
 * Location on this one object is cheaper than a headers object per redirect, and no answer ever
 * sees another's Location.
 */
const REDIRECT_HEADERS = new Headers({ 'Cache-Control': 'no-store', ...SECURITY_HEADERS });
const REDIRECT_INIT = { status: 302, headers: REDIRECT_HEADERS };

/** The clock's time as ISO 8601 text; on the system clock, formatted once per millisecond. */
let lastMs = -1;
let lastIso = '';
function isoTime(clock: Clock): string {
  if (clock !== systemClock) return clock().toISOString();
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

export interface ImpressionDeps {
  campaignCache: CampaignCache;
  clickPipeline: ClickPipeline;
  ipHasher: IpHasher;
  geo: GeoLookup;
  clock: Clock;
}

/**
 * GET /i/{campaign}. Always the GIF: an unknown campaign, a database hiccup or odd parameters
 * never break the page that embeds the pixel; they only mean no impression is recorded.
 */
export function handleImpression(deps: ImpressionDeps, campaign: string, request: TrackingRequest): Response | Promise<Response> {
  const at = deps.clock();
  const record = (found: { id: string; org_id: string; app_id: string | null } | null) => {
    if (!found) return;
    try {
      deps.clickPipeline.recordImpression(captureImpression(found, rawQuery(request.url), request, at, deps));
    } catch (error) {
      console.error('impression pixel: the impression could not be journaled', error);
    }
  };
  try {
    const found = deps.campaignCache.lookup(campaign);
    if (found instanceof Promise) {
      return found.then(record, (error) => console.error('impression pixel: campaign lookup failed', error)).then(pixel);
    }
    record(found);
  } catch (error) {
    console.error('impression pixel: campaign lookup failed', error);
  }
  return pixel();
}

function captureImpression(
  campaign: { id: string; org_id: string; app_id: string | null },
  query: Map<string, string>,
  request: TrackingRequest,
  at: Date,
  { ipHasher, geo }: Pick<ImpressionDeps, 'ipHasher' | 'geo'>,
): ImpressionRecord {
  const text = (name: string, max: number = IMPRESSION_LIMITS.valueLength) => {
    const value = decodedText(query.get(name) ?? '');
    return value === '' ? null : value.slice(0, max);
  };
  const ip = parseIp(request.ip);
  const userAgent = request.userAgent ? storable(request.userAgent).slice(0, CAPTURE_LIMITS.headerLength) : null;
  const device = userAgent ? parseUserAgent(userAgent) : null;
  return {
    id: newId(),
    org_id: campaign.org_id,
    campaign_id: campaign.id,
    app_id: text('app') ?? campaign.app_id,
    creative_id: text('cr'),
    placement: text('pl'),
    partner: text('p', IMPRESSION_LIMITS.partnerLength),
    // The raw address stops here: only its day hash and household hash travel on.
    ip_day_hash: ipHasher.ipDay(request.ip, at),
    household_hash: ipHasher.household(request.ip),
    user_agent: userAgent,
    os: device?.osFamily ?? null,
    device_type: device?.deviceType ?? null,
    country: ip ? geo.country(ip) : null,
    source: 'pixel',
    created_at: at.toISOString(),
  };
}

function pixel(): Response {
  return new Response(TRANSPARENT_GIF, { status: 200, headers: { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store', ...SECURITY_HEADERS } });
}

/** The Host part of a request URL (scheme://host/...). */
export function hostOf(url: string): string {
  const start = url.indexOf('//') + 2;
  const end = url.indexOf('/', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}
