/**
 * POST /api/mcp, answered by answer.ts. GET and DELETE (the SDK's SSE stream and session end)
 * answer 405: there are no sessions.
 *
 * The MCP SDK and what it brings (zod, ajv, about 230 modules and 9,000 functions) load on the
 * first MCP request, not at start: every young-generation collection of the answering thread
 * visits the functions it holds, so a node that never serves MCP keeps its redirect's pauses
 * short (docs/performance.md, "Start-up heap").
 */
import { Elysia } from 'elysia';
import type { McpDeps } from './tool';

let loaded: Promise<typeof import('./answer')> | undefined;

export function mcpRoutes(deps: McpDeps) {
  return new Elysia({ name: 'mcp' }).post('/api/mcp', async ({ request }) => (await (loaded ??= import('./answer'))).answer(deps, request), { parse: 'none' });
}
