import { clientIp, type ProxyTrust } from '../../http/client-ip';
import { HttpError } from '../../http/errors';
import { internalError, jsonResponse } from '../../http/http.plugin';
import { prefersHtml } from '../../http/prefers-html';
import type { NativeRoutes, PeerSource } from '../../http/native-routes';
import type { Config } from '../../config/config';
import { answerBatch } from './answer-batch';
import { rememberAddresses } from '../../ipintel/address-memo';
import { openGeoDatabase } from '../../ipintel/geo/geo-reader';
import { unavailablePage, VISITOR_PAGE_STATUSES } from '../smartlinks/pages/unavailable';
import { handleSmartLink, type SmartLinkDeps } from '../smartlinks/router.service';
import { handleClick, handleImpression, unavailable, type ClickDeps, type ImpressionDeps } from './tracking.service';

const PLAIN_IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** clientIp(), without parsing the common case (a plain IPv4 peer and no trusted proxy header) on the hot path. */
function requestIp(request: Request, socketIp: string | undefined, trust: ProxyTrust): string {
  if (trust.trustProxy === 0 && socketIp !== undefined) {
    if (PLAIN_IPV4.test(socketIp)) return socketIp;
    // Bun reports IPv4 peers of a dual-stack socket as IPv4-mapped IPv6 (::ffff:1.2.3.4).
    if (socketIp.startsWith('::ffff:') && PLAIN_IPV4.test(socketIp.slice(7))) return socketIp.slice(7);
  }
  return clientIp(request, socketIp, trust);
}

type Answer = Response | Promise<Response>;

/**
 * What the tracking handlers use of a node: its caches, its click pipeline, its clock and IP
 * hasher. The main thread passes its Services; a tracking listener thread (listener.worker.ts)
 * builds its own.
 */
export type TrackingDeps = ClickDeps & Omit<ImpressionDeps, 'geo'> & Pick<SmartLinkDeps, 'db' | 'ipIntel'> & {
  config: Pick<Config, 'trustProxy' | 'trustedProxies'>;
};

/** The two tracking handlers, bound to this node's caches and pipeline. */
function trackingHandlers({ linkCache, campaignCache, clickPipeline, clock, ipHasher, config, db, ipIntel }: TrackingDeps) {
  const clickDeps = { linkCache, clickPipeline, clock };
  // Rules ask about the visitor's address on this thread: each address is looked up once.
  const smartDeps = { ...clickDeps, db, ipIntel: rememberAddresses(ipIntel) };
  const impressionDeps = { campaignCache, clickPipeline, ipHasher, clock, geo: openGeoDatabase() };
  // One object shape for every path; /l passes the Accept-Language its rules may read as an
  // argument, so a visit builds its request once instead of spreading a /c request into a copy.
  const requestOf = (request: Request, socketIp: string | undefined, arrival: number, acceptLanguage: string | null = null) => ({
    url: request.url,
    ip: requestIp(request, socketIp, config),
    userAgent: request.headers.get('user-agent'),
    referer: request.headers.get('referer'),
    arrival,
    acceptLanguage,
  });
  return {
    click: (slug: string, request: Request, socketIp: string | undefined): Answer =>
      handleClick(clickDeps, slug, requestOf(request, socketIp, performance.now())),
    smartLink: (slug: string, request: Request, socketIp: string | undefined): Answer =>
      handleSmartLink(smartDeps, slug, requestOf(request, socketIp, performance.now(), request.headers.get('accept-language'))),
    impression: (campaign: string, request: Request, socketIp: string | undefined): Answer =>
      handleImpression(impressionDeps, campaign, requestOf(request, socketIp, performance.now())),
  };
}

function failure(error: unknown): Response {
  if (error instanceof HttpError) return jsonResponse(error.status, error.body, error.headers);
  return internalError('tracking: unhandled error', error);
}

/** A smart link's refusal as a page for a browser's visit (a person reads it), as JSON for anything else. */
function smartLinkFailure(request: Request): (error: unknown) => Response {
  return (error) =>
    error instanceof HttpError && VISITOR_PAGE_STATUSES.has(error.status) && prefersHtml(request.headers.get('accept')) ? unavailablePage(error.status) : failure(error);
}

/** The handlers' answers carry the app's security headers themselves; failures get the app's error bodies. */
function settle(answer: () => Answer, fail: (error: unknown) => Response = failure): Response | Promise<Response> {
  try {
    const response = answer();
    return response instanceof Promise ? response.catch(fail) : response;
  } catch (error) {
    return fail(error);
  }
}

/**
 * GET /c/{slug}, GET /l/{slug} and GET /i/{campaign} as Bun's own routes, skipping the app's per-request hooks
 * (no rate or body limits on these GETs: spec, Limits). Answers of one event-loop turn go out
 * together (answer-batch.ts); other methods get the app's 405.
 */
export function nativeTrackingRoutes(deps: TrackingDeps) {
  const handlers = trackingHandlers(deps);
  // A batch whose clicks could not be written answers as one whose click failed to journal.
  const batched = answerBatch(deps.clickPipeline, { refused: () => failure(unavailable()) });
  return {
    '/c/:slug': {
      GET: (request: Request & { params: { slug: string } }, server: PeerSource) =>
        batched(() => settle(() => handlers.click(request.params.slug, request, server.requestIP(request)?.address))),
    },
    '/l/:slug': {
      GET: (request: Request & { params: { slug: string } }, server: PeerSource) =>
        batched(() => settle(() => handlers.smartLink(request.params.slug, request, server.requestIP(request)?.address), smartLinkFailure(request))),
    },
    '/i/:campaign': {
      GET: (request: Request & { params: { campaign: string } }, server: PeerSource) =>
        batched(() => settle(() => handlers.impression(request.params.campaign, request, server.requestIP(request)?.address))),
    },
  } satisfies NativeRoutes;
}
