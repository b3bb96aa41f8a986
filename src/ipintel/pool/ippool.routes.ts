import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { IpPoolLookup, IpPoolLookupQuery } from './ippool.model';
import { lookupIp, type IpPoolDeps } from './ippool.service';

/** GET /api/dashboard/ippool/lookup: one address as the service sees it; session only. */
export function ippoolRoutes(services: AuthDeps & IpPoolDeps) {
  const { db, clock, ipIntel } = services;
  return new Elysia({ name: 'ippool' })
    .use(authPlugin(services))
    .get('/api/dashboard/ippool/lookup', ({ query, session }) => lookupIp({ db, clock, ipIntel }, session.orgId, query.ip), {
      session: true,
      query: IpPoolLookupQuery,
      response: { 200: IpPoolLookup },
      detail: { summary: 'One IP address: pool, geo, rate-limit key, exclusion form and live intel' },
    });
}
