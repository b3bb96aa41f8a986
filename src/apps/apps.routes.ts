import { Elysia } from 'elysia';
import { documented } from '../http/documented';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import type { KeyChanges } from '../auth/key-changes';
import { strictBody } from '../http/strict-body';
import { AppParams, CreateAppBody, ListAppsQuery, PatchAppBody } from './apps.model';
import { createApp, getApp, listApps, patchApp } from './apps.service';

/** Apps management API (API key). */
export function appsRoutes(deps: AuthDeps & { keyChanges: KeyChanges }) {
  const { db, keyChanges } = deps;
  return new Elysia({ name: 'apps' })
    .use(authPlugin(deps))
    .post(
      '/api/v1/apps',
      async ({ body, principal, set }) => {
        const app = await createApp({ db }, { orgId: principal.orgId, apiKeyId: principal.keyId }, body);
        set.status = 201;
        return app;
      },
      { apiKey: true, body: CreateAppBody, transform: strictBody(CreateAppBody), detail: { summary: 'Create an app with its SDK key', ...documented({ 201: ['the app, with its SDK key'] }) } },
    )
    .get('/api/v1/apps', async ({ query, principal }) => listApps({ db }, principal.orgId, query), {
      apiKey: true,
      query: ListAppsQuery,
      detail: { summary: 'List apps with their SDK keys', ...pageAnswer('a page of apps, newest first') },
    })
    .get('/api/v1/apps/:id', ({ params, principal }) => getApp({ db }, principal.orgId, params.id), { apiKey: true, params: AppParams, detail: { summary: 'One app' } })
    .patch('/api/v1/apps/:id', ({ params, principal, body }) => patchApp({ db, keyChanges }, { orgId: principal.orgId, apiKeyId: principal.keyId }, params.id, body), {
      apiKey: true,
      params: AppParams,
      body: PatchAppBody,
      transform: strictBody(PatchAppBody),
      detail: { summary: 'Change an app' },
    });
}
