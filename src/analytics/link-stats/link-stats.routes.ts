import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { LinkParams } from '../../links/links.model';
import { LinkStatsAnswer } from './link-stats.model';
import { linkStats, type LinkStatsDeps } from './link-stats.service';

/** GET /api/dashboard/links/{id}/analytics (session): what the link page shows, as JSON. */
export function linkStatsRoutes(deps: AuthDeps & LinkStatsDeps) {
  return new Elysia({ name: 'link-stats' })
    .use(authPlugin(deps))
    .get('/api/dashboard/links/:id/analytics', ({ params, session }) => linkStats(deps, session.orgId, params.id), {
      session: true,
      params: LinkParams,
      response: { 200: LinkStatsAnswer },
      detail: {
        summary: "One link's clicks by day (30 days) and hour (48 hours) in the reporting time zone, by country, OS, device, referrer and landing URL, its installs, conversions and smart-link decisions",
      },
    });
}
