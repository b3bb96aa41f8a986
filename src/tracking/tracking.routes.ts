import { Elysia } from 'elysia';
import { clientIp } from '../http/client-ip';
import type { Services } from '../services';
import { openGeoDatabase } from './enrich/geo';
import { ClickParams, ImpressionParams } from './tracking.model';
import { handleClick, handleImpression, type TrackingRequest } from './tracking.service';

const PLAIN_IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** clientIp(), without parsing the common case (a plain IPv4 peer and no trusted proxy header) on the hot path. */
function requestIp(request: Request, socketIp: string | undefined, trustProxy: number): string {
  if (trustProxy === 0 && socketIp !== undefined && PLAIN_IPV4.test(socketIp)) return socketIp;
  return clientIp(request, socketIp, trustProxy);
}

/**
 * The tracking host's routes. They answer on any host: the link's domain binding decides.
 * No query model on purpose (see tracking.model.ts): the handlers read request.url themselves.
 */
export function trackingRoutes(services: Services) {
  const { linkCache, campaignCache, clickPipeline, clock, ipHasher, config } = services;
  const clickDeps = { linkCache, clickPipeline, clock };
  const impressionDeps = { campaignCache, clickPipeline, ipHasher, clock, geo: openGeoDatabase() };
  const requestOf = (request: Request, socketIp: string | undefined, arrival: number): TrackingRequest => ({
    url: request.url,
    ip: requestIp(request, socketIp, config.trustProxy),
    userAgent: request.headers.get('user-agent'),
    referer: request.headers.get('referer'),
    arrival,
  });
  return new Elysia({ name: 'tracking' })
    .get(
      '/c/:slug',
      ({ params, request, server }) => {
        const arrival = performance.now();
        return handleClick(clickDeps, params.slug, requestOf(request, server?.requestIP(request)?.address, arrival));
      },
      { params: ClickParams },
    )
    .get(
      '/i/:campaign',
      ({ params, request, server }) => {
        const arrival = performance.now();
        return handleImpression(impressionDeps, params.campaign, requestOf(request, server?.requestIP(request)?.address, arrival));
      },
      { params: ImpressionParams },
    );
}
