import { Elysia } from 'elysia';
import { htmlResponse } from '../dashboard/web/html';
import { docsPage } from './docs.page';

/** GET /api/openapi.json and GET /docs, both from the document the app builds once, on first use. */
export function openApiRoutes(document: () => Record<string, unknown>) {
  return new Elysia({ name: 'openapi' })
    .get('/api/openapi.json', () => document(), {
      detail: { summary: 'This OpenAPI 3.1 document', responses: { 200: { description: 'the document', content: { 'application/json': { schema: { type: 'object' } } } } } },
    })
    .get('/docs', () => htmlResponse(docsPage(document())), {
      detail: { tags: ['Reference'], summary: 'The API reference, rendered from the OpenAPI document', responses: { 200: { description: 'the page', content: { 'text/html': {} } } } },
    });
}
