import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { HotLinkList } from './hot-links.model';
import { hotLinks, type HotLinksDeps } from './hot-links.service';
import { ingestRoutes, type IngestRoutesDeps } from './ingest.routes';

/**
 * The edge pair (docs/edge.md): an edge worker warms its cache from the hot links (API key) and
 * posts the clicks it answered, signed with INGEST_SECRET.
 */
export function edgeRoutes(services: AuthDeps & HotLinksDeps & IngestRoutesDeps) {
  return new Elysia({ name: 'edge' })
    .use(authPlugin(services))
    .get('/api/edge/links/hot', ({ principal }) => hotLinks(services, principal.orgId), { apiKey: true, response: { 200: HotLinkList }, detail: { summary: 'Link configs of the top links by clicks in the last 24 hours, for an edge cache' } })
    .use(ingestRoutes(services));
}
