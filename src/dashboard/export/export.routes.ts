import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { exportWindow, ExportQuery } from './export.model';
import { dashboardExport, type DashboardExportDeps } from './export.service';

/** GET /api/dashboard/export (session): a CSV of clicks, conversions, the campaign pivot or the cohort report, from the mirror. */
export function dashboardExportRoutes(deps: AuthDeps & DashboardExportDeps) {
  return new Elysia({ name: 'dashboard-export' })
    .use(authPlugin(deps))
    .get(
      '/api/dashboard/export',
      async ({ query, session }) => {
        const { type, from, to, ...cohorts } = query;
        const window = exportWindow({ from, to }, deps.clock());
        const csv = await dashboardExport(deps, session.orgId, { type, ...window, cohorts });
        return new Response(csv.body, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="${csv.filename}"`,
            'cache-control': 'no-store',
          },
        });
      },
      {
        session: true,
        query: ExportQuery,
        detail: {
          summary: 'CSV export of clicks, conversions, the campaign pivot or the cohort report',
          responses: { 200: { description: 'the CSV, as an attachment', content: { 'text/csv': { schema: { type: 'string' } } } } },
        },
      },
    );
}
