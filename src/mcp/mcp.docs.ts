import { t } from 'elysia';
import { documented } from '../http/documented';

/** The SDK's answer to a body that is not JSON-RPC 2.0 (a parse or invalid-request error). */
export const JsonRpcErrorBody = t.Object({
  jsonrpc: t.Literal('2.0'),
  error: t.Object({ code: t.Integer(), message: t.String() }),
  id: t.Null(),
});

/**
 * POST /api/mcp for the OpenAPI document: the API key is optional (documentation tools answer
 * without one), and the 400 is JSON-RPC's, not the spec's validation body.
 */
export const mcpRouteDetail = () => ({
  summary: 'MCP over JSON-RPC 2.0, stateless: documentation tools, and with an API key analytics and management tools',
  security: [{}, { apiKey: [] }] as Record<string, string[]>[],
  ...documented({
    200: ['the JSON-RPC response'],
    202: ['a notification, accepted; no body'],
    400: ['not JSON-RPC 2.0', JsonRpcErrorBody],
    401: ['a tool that needs an API key, called without a valid one'],
    403: ['an Origin header that is not this service\'s own (DNS rebinding)'],
  }),
});
