import { Elysia } from 'elysia';
import { recordAudit } from '../auth/audit';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import type { Db } from '../db/db';
import { strictBody } from '../http/strict-body';
import { ExportQuery, parseExportDays } from './export/export.model';
import { invalidClicksCsv, type ExportDeps } from './export/export.service';
import { ProtectSettings } from './settings.model';
import { selectInvalidThreshold, updateInvalidThreshold } from './settings.repo';

/**
 * The session side of protect: the invalid-click CSV and the organization's threshold. The beacon
 * (no auth) and the Google Ads sync have their own route files.
 */
export function protectRoutes(services: AuthDeps & ExportDeps & { db: Db }) {
  const { db } = services;
  return new Elysia({ name: 'protect' })
    .use(authPlugin(services))
    .get(
      '/api/protect/export',
      async ({ query, session }) => {
        const days = parseExportDays(query);
        const csv = await invalidClicksCsv(services, session.orgId, days);
        const day = services.clock().toISOString().slice(0, 10);
        return new Response(csv, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="invalid-clicks-${day}-${days}d.csv"`,
            'cache-control': 'no-store',
          },
        });
      },
      {
        session: true,
        query: ExportQuery,
        detail: { summary: 'CSV export of invalid clicks', responses: { 200: { description: 'invalid clicks by IP and campaign (docs/protect.md)', content: { 'text/csv': { schema: { type: 'string' } } } } } },
      },
    )
    .get('/api/dashboard/protect/settings', async ({ session }) => ({ invalid_threshold: await selectInvalidThreshold(db, session.orgId) }), {
      session: true,
      response: { 200: ProtectSettings },
      detail: { summary: "The organization's invalid-click threshold" },
    })
    .put(
      '/api/dashboard/protect/settings',
      async ({ body, session }) => {
        await db.transaction(async (tx) => {
          await updateInvalidThreshold(tx, session.orgId, body.invalid_threshold);
          await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'update', entity: 'protect_settings', detail: body });
        });
        return { invalid_threshold: body.invalid_threshold };
      },
      { session: true, body: ProtectSettings, transform: strictBody(ProtectSettings), response: { 200: ProtectSettings }, detail: { summary: 'Set the invalid-click threshold' } },
    );
}
