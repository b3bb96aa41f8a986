/**
 * POST /api/mcp, answered by answer.ts. GET and DELETE (the SDK's SSE stream and session end)
 * answer 405: there are no sessions.
 *
 * The MCP SDK and what it brings (zod, ajv: hundreds of modules) load on the first MCP request,
 * not at start, so a node that never serves MCP keeps them out of the heap of the thread that
 * answers redirects (docs/performance.md, "Start-up heap").
 */
import { Elysia } from 'elysia';
import { forbidden } from '../http/errors';
import { mcpRouteDetail } from './mcp.docs';
import type { McpDeps } from './tool';

let loaded: Promise<typeof import('./answer')> | undefined;

export function mcpRoutes(deps: McpDeps) {
  const ownOrigin = new URL(deps.config.baseUrl).origin;
  return new Elysia({ name: 'mcp' }).post(
    '/api/mcp',
    async ({ request }) => {
      if (foreignOrigin(request, ownOrigin)) throw forbidden();
      return (await (loaded ??= import('./answer'))).answer(deps, request);
    },
    { parse: 'none', detail: mcpRouteDetail() },
  );
}

/**
 * The streamable HTTP transport's rule against DNS rebinding (docs/security.md, "MCP and DNS
 * rebinding"): a page of another origin, `null` included, is refused. Without Origin the caller
 * is no browser, and is served.
 */
function foreignOrigin(request: Request, ownOrigin: string): boolean {
  const origin = request.headers.get('origin');
  return origin !== null && origin !== ownOrigin;
}
