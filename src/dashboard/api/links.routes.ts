import { Elysia } from 'elysia';
import { documented } from '../../http/documented';
import { pageAnswer } from '../../http/pagination';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { strictBody } from '../../http/strict-body';
import { CreateLinkBody, LinkParams, ListLinksQuery, PatchLinkBody } from '../../links/links.model';
import { createLink, deleteLink, getLink, listLinks, patchLink, type LinksDeps } from '../../links/links.service';

/**
 * The links of the web app (session): the same service, bodies and answers as /api/v1/links,
 * the audit row naming the user instead of a key. Writes follow the session CSRF rule.
 */
export function dashboardLinksRoutes(deps: LinksDeps & AuthDeps) {
  const actor = (session: { orgId: string; userId: string }) => ({ orgId: session.orgId, userId: session.userId });
  return new Elysia({ name: 'dashboard-links' })
    .use(authPlugin(deps))
    .post(
      '/api/dashboard/links',
      async ({ body, session, set }) => {
        const link = await createLink(deps, actor(session), body);
        set.status = 201;
        return link;
      },
      { session: true, body: CreateLinkBody, transform: strictBody(CreateLinkBody), detail: { summary: 'Create a link (as POST /api/v1/links)', ...documented({ 201: ['the link, with its short URL'] }) } },
    )
    .get('/api/dashboard/links', async ({ query, session }) => listLinks(deps, session.orgId, query), {
      session: true,
      query: ListLinksQuery,
      detail: { summary: 'List links, newest first (as GET /api/v1/links)', ...pageAnswer('a page of links, newest first') },
    })
    .get('/api/dashboard/links/:id', ({ params, session }) => getLink(deps, session.orgId, params.id), {
      session: true,
      params: LinkParams,
      detail: { summary: 'One link (as GET /api/v1/links/{id})' },
    })
    .patch('/api/dashboard/links/:id', ({ params, session, body }) => patchLink(deps, actor(session), params.id, body), {
      session: true,
      params: LinkParams,
      body: PatchLinkBody,
      transform: strictBody(PatchLinkBody),
      detail: { summary: 'Change a link: pause, resume, rules (as PATCH /api/v1/links/{id})' },
    })
    .delete('/api/dashboard/links/:id', ({ params, session }) => deleteLink(deps, actor(session), params.id), {
      session: true,
      params: LinkParams,
      detail: { summary: 'Delete a link (as DELETE /api/v1/links/{id})' },
    });
}
