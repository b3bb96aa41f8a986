import { Elysia } from 'elysia';
import { documented } from '../../http/documented';
import { AppParams, CreateAppBody, ListAppsQuery, PatchAppBody } from '../../apps/apps.model';
import { createApp, listApps, patchApp } from '../../apps/apps.service';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { pageAnswer } from '../../http/pagination';
import type { KeyChanges } from '../../auth/key-changes';
import { strictBody } from '../../http/strict-body';

/** Apps and their SDK keys in the web app (session): the same service and bodies as /api/v1/apps. */
export function dashboardAppsRoutes(deps: AuthDeps & { keyChanges: KeyChanges }) {
  const { db, keyChanges } = deps;
  return new Elysia({ name: 'dashboard-apps' })
    .use(authPlugin(deps))
    .post(
      '/api/dashboard/apps',
      async ({ body, session, set }) => {
        const app = await createApp({ db }, { orgId: session.orgId, userId: session.userId }, body);
        set.status = 201;
        return app;
      },
      { session: true, body: CreateAppBody, transform: strictBody(CreateAppBody), detail: { summary: 'Create an app with its SDK key (as POST /api/v1/apps)', ...documented({ 201: ['the app, with its SDK key'] }) } },
    )
    .get('/api/dashboard/apps', async ({ query, session }) => listApps({ db }, session.orgId, query), {
      session: true,
      query: ListAppsQuery,
      detail: { summary: 'List apps with their SDK keys (as GET /api/v1/apps)', ...pageAnswer('a page of apps, newest first') },
    })
    .patch('/api/dashboard/apps/:id', ({ params, session, body }) => patchApp({ db, keyChanges }, { orgId: session.orgId, userId: session.userId }, params.id, body), {
      session: true,
      params: AppParams,
      body: PatchAppBody,
      transform: strictBody(PatchAppBody),
      detail: { summary: 'Change an app (as PATCH /api/v1/apps/{id})' },
    });
}
