import { Elysia } from 'elysia';
import { clientIp } from '../http/client-ip';
import type { Services } from '../services';
import { openGeoDatabase } from './enrich/geo';
import { ClickParams, ImpressionParams } from './tracking.model';
import { handleClick, handleImpression, type TrackingRequest } from './tracking.service';

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
    ip: clientIp(request, socketIp, config.trustProxy),
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
