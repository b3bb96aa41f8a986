import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { breakdownDetail } from './breakdown.docs';
import { BreakdownAnswer, BreakdownQuery, parseBreakdownQuery } from './breakdown.model';
import { breakdownReport, type BreakdownDeps } from './breakdown.service';

/** GET /api/v1/reports/breakdown (API key) and the same for the dashboard (session), on the caller's organization only. */
export function breakdownRoutes(deps: AuthDeps & BreakdownDeps) {
  return new Elysia({ name: 'reports-breakdown' })
    .use(authPlugin(deps))
    .get('/api/v1/reports/breakdown', ({ query, principal }) => breakdownReport(deps, principal.orgId, parseBreakdownQuery(query)), {
      apiKey: true,
      query: BreakdownQuery,
      response: { 200: BreakdownAnswer },
      detail: breakdownDetail('API key'),
    })
    .get('/api/dashboard/reports/breakdown', ({ query, session }) => breakdownReport(deps, session.orgId, parseBreakdownQuery(query)), {
      session: true,
      query: BreakdownQuery,
      response: { 200: BreakdownAnswer },
      detail: breakdownDetail('session, as GET /api/v1/reports/breakdown'),
    });
}
