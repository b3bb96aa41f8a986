import { Elysia } from 'elysia';
import type { Server } from 'bun';
import { clientIp, type ProxyTrust } from '../http/client-ip';
import { HttpError } from '../http/errors';
import { internalError, jsonResponse } from '../http/http.plugin';
import type { Config } from '../config';
import type { Services } from '../services';
import { answerBatch } from './answer-batch';
import { openGeoDatabase } from './enrich/geo';
import { ClickParams, ImpressionParams } from './tracking.model';
import { handleClick, handleImpression } from './tracking.service';

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
export type TrackingDeps = Pick<Services, 'linkCache' | 'campaignCache' | 'clickPipeline' | 'clock' | 'ipHasher'> & {
  config: Pick<Config, 'trustProxy' | 'trustedProxies'>;
};

/** The two tracking handlers, bound to this node's caches and pipeline; shared by both ways in. */
function trackingHandlers({ linkCache, campaignCache, clickPipeline, clock, ipHasher, config }: TrackingDeps) {
  const clickDeps = { linkCache, clickPipeline, clock };
  const impressionDeps = { campaignCache, clickPipeline, ipHasher, clock, geo: openGeoDatabase() };
  const requestOf = (request: Request, socketIp: string | undefined, arrival: number) => ({
    url: request.url,
    ip: requestIp(request, socketIp, config),
    userAgent: request.headers.get('user-agent'),
    referer: request.headers.get('referer'),
    arrival,
  });
  return {
    click: (slug: string, request: Request, socketIp: string | undefined): Answer =>
      handleClick(clickDeps, slug, requestOf(request, socketIp, performance.now())),
    impression: (campaign: string, request: Request, socketIp: string | undefined): Answer =>
      handleImpression(impressionDeps, campaign, requestOf(request, socketIp, performance.now())),
  };
}

/**
 * The tracking host's routes inside the app (in-process requests, and every method other than
 * GET, which the app answers with 405). They answer on any host: the link's domain binding decides.
 * No query model on purpose (see tracking.model.ts): the handlers read request.url themselves.
 */
export function trackingRoutes(deps: TrackingDeps) {
  const handlers = trackingHandlers(deps);
  return new Elysia({ name: 'tracking' })
    .get('/c/:slug', ({ params, request, server }) => handlers.click(params.slug, request, server?.requestIP(request)?.address), {
      params: ClickParams,
    })
    .get('/i/:campaign', ({ params, request, server }) => handlers.impression(params.campaign, request, server?.requestIP(request)?.address), {
      params: ImpressionParams,
    });
}

function failure(error: unknown): Response {
  if (error instanceof HttpError) return jsonResponse(error.status, error.body, error.headers);
  return internalError('tracking: unhandled error', error);
}

/** The handlers' answers carry the app's security headers themselves; failures get the app's error bodies. */
function settle(answer: () => Answer): Response | Promise<Response> {
  try {
    const response = answer();
    return response instanceof Promise ? response.catch(failure) : response;
  } catch (error) {
    return failure(error);
  }
}

/**
 * GET /c/{slug} and GET /i/{campaign} as Bun's own routes, skipping the app's per-request hooks
 * (rate and body limits do not apply to these GETs: spec, Limits); same handlers, headers and
 * error bodies as the in-app routes, answers of one loop turn sent together (answer-batch.ts).
 */
export function nativeTrackingRoutes(deps: TrackingDeps) {
  const handlers = trackingHandlers(deps);
  const batched = answerBatch();
  return {
    '/c/:slug': {
      GET: (request: Request & { params: { slug: string } }, server: Server<undefined>) =>
        batched(settle(() => handlers.click(request.params.slug, request, server.requestIP(request)?.address))),
    },
    '/i/:campaign': {
      GET: (request: Request & { params: { campaign: string } }, server: Server<undefined>) =>
        batched(settle(() => handlers.impression(request.params.campaign, request, server.requestIP(request)?.address))),
    },
  };
}
