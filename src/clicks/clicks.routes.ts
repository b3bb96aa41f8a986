import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { ClickList, ClickListQuery, parseClickFilter } from './clicks.model';
import { listClicks } from './clicks.service';

/** GET /api/v1/clicks: the key's organization only, newest first. */
export function clicksRoutes(services: AuthDeps) {
  const { db } = services;
  return new Elysia({ name: 'clicks' })
    .use(authPlugin(services))
    .get(
      '/api/v1/clicks',
      ({ query, principal }) => listClicks({ db }, principal.orgId, parseClickFilter(query), query.cursor),
      { apiKey: true, query: ClickListQuery, response: { 200: ClickList }, detail: { summary: 'Export clicks, newest first' } },
    );
}
