import { Elysia } from 'elysia';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { DomainParams, ListDomainsQuery } from './domains.model';
import { listDomains, verifyDomain, type DomainsDeps } from './domains.service';

/** Custom domains of the caller's organization and their DNS verification (API key). */
export function domainsRoutes(deps: DomainsDeps & AuthDeps) {
  return new Elysia({ name: 'domains' })
    .use(authPlugin(deps))
    .get('/api/v1/domains', ({ query, principal }) => listDomains(deps, principal.orgId, query), {
      apiKey: true,
      query: ListDomainsQuery,
      detail: { summary: "List the organization's custom domains", ...pageAnswer('a page of domains, by name') },
    })
    .post(
      '/api/v1/domains/:domain/verify',
      ({ params, principal }) => verifyDomain(deps, { orgId: principal.orgId, apiKeyId: principal.keyId }, params.domain),
      { apiKey: true, params: DomainParams, detail: { summary: "Check a custom domain's TXT record now", responses: { 409: { description: 'another organization holds the domain' } } } },
    );
}
