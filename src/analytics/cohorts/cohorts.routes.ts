import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { documented } from '../../http/documented';
import { CohortQueryText, CohortReportBody } from './cohorts.model';
import { cohortReport, type CohortDeps } from './cohorts.service';

const DESCRIPTION =
  "Installs of each install day (in the organization's time zone) and group, followed day by day: installs active on cohort day N " +
  '(retention), cumulative revenue through day N in the reporting currency (ARPU, ROAS against the cost imports), uninstalls. ' +
  'A cohort day a cohort has not reached yet is null in every field; the total is computed again from the sums. See docs/reports.md, "Cohorts".';

/** GET /api/v1/reports/cohorts (API key) and its dashboard twin (session): one report, one answer. */
export function cohortsRoutes(deps: AuthDeps & CohortDeps) {
  const detail = (who: string) => ({ summary: `Cohort report: retention, revenue and ROAS by install day (${who})`, description: DESCRIPTION, ...documented({ 200: ['the report', CohortReportBody] }) });
  return new Elysia({ name: 'cohorts' })
    .use(authPlugin(deps))
    .get('/api/v1/reports/cohorts', ({ query, principal }) => cohortReport(deps, principal.orgId, query), { apiKey: true, query: CohortQueryText, detail: detail('API key') })
    .get('/api/dashboard/reports/cohorts', ({ query, session }) => cohortReport(deps, session.orgId, query), { session: true, query: CohortQueryText, detail: detail('dashboard session') });
}
