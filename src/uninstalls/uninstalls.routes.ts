import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { parseUninstallFilter, UninstallsQuery, UninstallsResponse } from './uninstalls.model';
import { listUninstallsByCampaign } from './uninstalls.service';

/** GET /api/v1/uninstalls: the key's organization's uninstalled installs per campaign. */
export function uninstallsRoutes(services: AuthDeps) {
  const { db } = services;
  return new Elysia({ name: 'uninstalls' })
    .use(authPlugin(services))
    .get(
      '/api/v1/uninstalls',
      async ({ query, principal }) => ({ data: await listUninstallsByCampaign({ db }, principal.orgId, parseUninstallFilter(query)) }),
      { apiKey: true, query: UninstallsQuery, response: { 200: UninstallsResponse }, detail: { summary: 'Uninstalled installs per campaign' } },
    );
}
