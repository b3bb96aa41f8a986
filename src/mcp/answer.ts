/**
 * One MCP request: the SDK's web-standard streamable HTTP transport, stateless, answering JSON.
 * A fresh server and transport per request, as the SDK requires of stateless transports.
 * Loaded on the first POST /api/mcp (transport.routes.ts), with the SDK behind it.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { authenticateApiKey, type ApiKeyPrincipal } from '../auth/api-keys';
import { bearer } from '../auth/auth.plugin';
import { chargeKey } from '../auth/key-rate-limit';
import { HttpError } from '../http/errors';
import { jsonResponse, SECURITY_HEADERS } from '../http/http.plugin';
import { readEnvelope } from './envelope';
import { checkParamsFirst } from './params';
import { createMcpServer, requiresKey } from './server';
import type { McpDeps } from './tool';

/** Answers are always JSON (never an event stream), so any client that sends JSON-RPC is served. */
const TRANSPORT_ACCEPT = 'application/json, text/event-stream';

/** The spec's 401, with the challenge RFC 6750 and MCP's authorization rules ask of a bearer-token server. */
const keyRequired = () => new HttpError(401, { error: 'unauthorized' }, { 'WWW-Authenticate': 'Bearer' });

export async function answer(deps: McpDeps, request: Request): Promise<Response> {
  // A body not declared JSON gets the transport's own 415, unread.
  if (!isJsonContentType(request.headers.get('content-type'))) return serve(deps, null, request);
  const envelope = readEnvelope(await request.text());
  if (!envelope.ok) return jsonResponse(400, envelope.refusal);
  const presented = bearer(request.headers.get('authorization'));
  // An invalid or revoked key counts as none: documentation stays readable, keyed calls get the 401.
  const principal = presented === undefined ? null : await authenticateApiKey(deps.db, presented);
  if (!principal && requiresKey(envelope.body)) throw keyRequired();
  if (principal) await chargeKey(deps, { kind: 'api', id: principal.keyId, rateLimitPerMinute: principal.rateLimitPerMinute });
  return serve(deps, principal, request, envelope.body);
}

async function serve(deps: McpDeps, principal: ApiKeyPrincipal | null, request: Request, parsedBody?: JSONRPCMessage | JSONRPCMessage[]): Promise<Response> {
  const server = createMcpServer(deps, principal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  checkParamsFirst(transport);
  try {
    const answered = await transport.handleRequest(forTransport(request), { parsedBody });
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) answered.headers.set(name, value);
    return answered;
  } finally {
    await server.close();
  }
}

/** The request's headers for the transport, which reads the body already parsed (or refuses its type). */
function forTransport(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set('accept', TRANSPORT_ACCEPT);
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  return new Request(request.url, { method: 'POST', headers });
}
