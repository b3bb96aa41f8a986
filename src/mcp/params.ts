/**
 * The `params` of each request the server answers, checked before its handler runs: the SDK's
 * handlers parse them with zod and answer a failure -32603 with the issues as JSON; here a bad
 * request gets -32602 Invalid params and a short message naming the field (docs/mcp.md, "Errors").
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';

/** The schemas the handlers parse their request with (server.ts; initialize and ping are the SDK's own). */
const REQUEST_SCHEMAS = [
  InitializeRequestSchema,
  PingRequestSchema,
  ListToolsRequestSchema,
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  ListPromptsRequestSchema,
  GetPromptRequestSchema,
];
const BY_METHOD = new Map<string, (typeof REQUEST_SCHEMAS)[number]>(REQUEST_SCHEMAS.map((schema) => [schema.shape.method.value, schema]));
/** Enough issues to fix a call; a message stays a sentence, not a dump. */
const MAX_ISSUES = 3;

/** The -32602 answer to a request whose params its method's schema refuses; none for an unknown method (-32601 follows). */
export function invalidParams(request: JSONRPCRequest): JSONRPCErrorResponse | undefined {
  const parsed = BY_METHOD.get(request.method)?.safeParse(request);
  if (!parsed || parsed.success) return undefined;
  const issues = parsed.error.issues.slice(0, MAX_ISSUES).map(({ path, message }) => {
    const at = path.map(String).join('.');
    const reason = message.replace(/^Invalid input: /, '');
    return reason.endsWith('received undefined') ? `${at} is required` : `${at}: ${reason}`;
  });
  return { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${issues.join('; ')}` } };
}

/**
 * Puts the check between a connected transport and its server: a refused request is answered on
 * the transport (in its place in a batch) and never reaches the server.
 */
export function checkParamsFirst(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refusal = isJSONRPCRequest(message) ? invalidParams(message) : undefined;
    if (refusal) void transport.send(refusal).catch((error) => console.error('mcp: answering invalid params failed', error));
    else deliver?.(message, extra);
  };
}
