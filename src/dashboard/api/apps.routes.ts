import { Elysia } from 'elysia';
import { CreateAppBody, ListAppsQuery } from '../../apps/apps.model';
import { createApp, listApps } from '../../apps/apps.service';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { pageAnswer } from '../../http/pagination';
import { strictBody } from '../../http/strict-body';

/** Apps and their SDK keys in the web app (session): the same service and bodies as /api/v1/apps. */
export function dashboardAppsRoutes(deps: AuthDeps) {
  const { db } = deps;
  return new Elysia({ name: 'dashboard-apps' })
    .use(authPlugin(deps))
    .post(
      '/api/dashboard/apps',
      async ({ body, session, set }) => {
        const app = await createApp({ db }, { orgId: session.orgId, userId: session.userId }, body);
        set.status = 201;
        return app;
      },
      { session: true, body: CreateAppBody, transform: strictBody(CreateAppBody), detail: { summary: 'Create an app with its SDK key (as POST /api/v1/apps)' } },
    )
    .get('/api/dashboard/apps', async ({ query, session }) => listApps({ db }, session.orgId, query), {
      session: true,
      query: ListAppsQuery,
      detail: { summary: 'List apps with their SDK keys (as GET /api/v1/apps)', ...pageAnswer('a page of apps, newest first') },
    });
}
