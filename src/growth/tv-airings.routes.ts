import { Elysia } from 'elysia';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { strictBody } from '../http/strict-body';
import { TvAiringsBody, TvAiringsQuery } from './tv-airings.model';
import { importAirings, listOrgAirings, type TvAiringDeps } from './tv-airings.service';

/** TV airing import with its attribution, and the list of airings (docs/growth-imports.md). */
export function tvAiringsRoutes(services: AuthDeps & TvAiringDeps) {
  return new Elysia({ name: 'tv-airings-routes' })
    .use(authPlugin(services))
    .post('/api/v1/tv-airings', ({ body, principal }) => importAirings(services, principal, body.airings), {
      apiKey: true,
      body: TvAiringsBody,
      transform: strictBody(TvAiringsBody),
      detail: { summary: 'Import TV airings and attribute them (not idempotent)' },
    })
    .get('/api/v1/tv-airings', ({ query, principal }) => listOrgAirings(services, principal.orgId, query), {
      apiKey: true,
      query: TvAiringsQuery,
      detail: { summary: 'List TV airings', ...pageAnswer('a page of airings, latest first') },
    });
}
