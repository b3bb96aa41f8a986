/**
 * One MCP request: the SDK's web-standard streamable HTTP transport, stateless, answering JSON.
 * A fresh server and transport per request, as the SDK requires of stateless transports.
 * Loaded on the first POST /api/mcp (transport.routes.ts), with the SDK behind it.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { authenticateApiKey } from '../auth/api-keys';
import { bearer } from '../auth/auth.plugin';
import { unauthorized } from '../http/errors';
import { SECURITY_HEADERS } from '../http/http.plugin';
import { createMcpServer, requiresKey } from './server';
import type { McpDeps } from './tool';

/** Answers are always JSON (never an event stream), so any client that sends JSON-RPC is served. */
const TRANSPORT_ACCEPT = 'application/json, text/event-stream';

export async function answer(deps: McpDeps, request: Request): Promise<Response> {
  const body = await request.text();
  const presented = bearer(request.headers.get('authorization'));
  // An invalid or revoked key counts as none: documentation stays readable, keyed calls get the 401.
  const principal = presented === undefined ? null : await authenticateApiKey(deps.db, presented);
  if (!principal && requiresKey(parseJson(body))) throw unauthorized();

  const server = createMcpServer(deps, principal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const answered = await transport.handleRequest(forTransport(request, body));
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) answered.headers.set(name, value);
    return answered;
  } finally {
    await server.close();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The request as read, body restored; its JSON, JSON-RPC and content-type checks stay the SDK's. */
function forTransport(request: Request, body: string): Request {
  const headers = new Headers(request.headers);
  headers.set('accept', TRANSPORT_ACCEPT);
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  return new Request(request.url, { method: 'POST', headers, body });
}
