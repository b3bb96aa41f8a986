import { Elysia } from 'elysia';
import { documented } from '../http/documented';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { strictBody } from '../http/strict-body';
import { CreateLinkBody, LinkParams, ListLinksQuery, PatchLinkBody } from './links.model';
import { createLink, deleteLink, getLink, listLinks, patchLink, type LinksDeps } from './links.service';

/** Links management API (API key). Every committed write is announced to the redirect caches. */
export function linksRoutes(deps: LinksDeps & AuthDeps) {
  return new Elysia({ name: 'links' })
    .use(authPlugin(deps))
    .post(
      '/api/v1/links',
      async ({ body, principal, set }) => {
        const link = await createLink(deps, { orgId: principal.orgId, apiKeyId: principal.keyId }, body);
        set.status = 201;
        return link;
      },
      { apiKey: true, body: CreateLinkBody, transform: strictBody(CreateLinkBody), detail: { summary: 'Create a link', ...documented({ 201: ['the link, with its short URL'] }) } },
    )
    .get('/api/v1/links', async ({ query, principal }) => listLinks(deps, principal.orgId, query), {
      apiKey: true,
      query: ListLinksQuery,
      detail: { summary: 'List links, newest first', ...pageAnswer('a page of links, newest first') },
    })
    .get('/api/v1/links/:id', ({ params, principal }) => getLink(deps, principal.orgId, params.id), { apiKey: true, params: LinkParams, detail: { summary: 'One link' } })
    .patch('/api/v1/links/:id', ({ params, principal, body }) => patchLink(deps, { orgId: principal.orgId, apiKeyId: principal.keyId }, params.id, body), {
      apiKey: true,
      params: LinkParams,
      body: PatchLinkBody,
      transform: strictBody(PatchLinkBody),
      detail: { summary: 'Change a link: pause, resume, rules' },
    })
    .delete('/api/v1/links/:id', ({ params, principal }) => deleteLink(deps, { orgId: principal.orgId, apiKeyId: principal.keyId }, params.id), {
      apiKey: true,
      params: LinkParams,
      detail: { summary: 'Delete a link: its URL answers 404, its clicks stay in the reports' },
    });
}
