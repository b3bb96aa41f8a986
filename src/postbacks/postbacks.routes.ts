import { Elysia } from 'elysia';
import { documented } from '../http/documented';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import type { Config } from '../config/config';
import { strictBody } from '../http/strict-body';
import { DestinationInput, DestinationParams, ListDeliveriesQuery, ListDestinationsQuery } from './postbacks.model';
import { createDestination, listOrgDeliveries, listOrgDestinations, removeDestination } from './postbacks.service';

/** Where conversions are forwarded, and the log of what was sent (docs/postbacks.md). */
export function postbacksRoutes(services: AuthDeps & { config: Pick<Config, 'sessionSecret' | 'postbackAllowPrivate'> }) {
  const deps = { db: services.db, allowPrivate: services.config.postbackAllowPrivate };
  return new Elysia({ name: 'postbacks-routes' })
    .use(authPlugin(services))
    .post(
      '/api/v1/postback-destinations',
      async ({ body, principal, set }) => {
        const created = await createDestination(deps, principal, body);
        set.status = 201;
        return created;
      },
      { apiKey: true, body: DestinationInput, transform: strictBody(DestinationInput), detail: { summary: 'Add a postback destination', ...documented({ 201: ['the destination'] }) } },
    )
    .get('/api/v1/postback-destinations', ({ query, principal }) => listOrgDestinations(deps, principal.orgId, query), {
      apiKey: true,
      query: ListDestinationsQuery,
      detail: { summary: 'List postback destinations, newest first', ...pageAnswer('a page of destinations, newest first') },
    })
    .delete('/api/v1/postback-destinations/:id', ({ params, principal }) => removeDestination(deps, principal, params.id), {
      apiKey: true,
      params: DestinationParams,
      detail: { summary: 'Remove a postback destination' },
    })
    .get(
      '/api/v1/postback-deliveries',
      ({ query, principal }) =>
        listOrgDeliveries(deps, principal.orgId, { status: query.status, conversionId: query.conversion_id, destinationId: query.destination_id }, query),
      { apiKey: true, query: ListDeliveriesQuery, detail: { summary: 'The log of postback deliveries, newest first', ...pageAnswer('a page of deliveries, newest first') } },
    );
}
