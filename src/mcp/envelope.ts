/**
 * What a POST /api/mcp body must be before anything else reads it (docs/mcp.md, "Errors"): JSON,
 * else -32700; a JSON-RPC 2.0 message or a batch of 1 to 100, else -32600 for the whole body.
 * Each message is checked by the SDK's own message schema, so what passes here passes its transport.
 */
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http/json-body';

/** JSON-RPC 2.0's answer to a body it cannot read a request from: id null, as its id cannot be trusted. */
export interface Refusal {
  jsonrpc: '2.0';
  id: null;
  error: { code: number; message: string };
}

export type Envelope = { ok: true; body: JSONRPCMessage | JSONRPCMessage[] } | { ok: false; refusal: Refusal };

export function readEnvelope(text: string): Envelope {
  // The bound every JSON body is read under (docs/http-rules.md, "JSON bodies"), checked on the text.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return refused(ErrorCode.InvalidRequest, `Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refused(ErrorCode.ParseError, 'Parse error: the body is not JSON');
  }
  if (!Array.isArray(parsed)) {
    return JSONRPCMessageSchema.safeParse(parsed).success ? { ok: true, body: parsed as JSONRPCMessage } : refused(ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
  }
  if (parsed.length === 0) return refused(ErrorCode.InvalidRequest, 'Invalid Request: an empty batch');
  if (parsed.length > MAX_BATCH_SIZE) return refused(ErrorCode.InvalidRequest, `Invalid Request: a batch holds at most ${MAX_BATCH_SIZE} messages`);
  const bad = parsed.findIndex((message) => !JSONRPCMessageSchema.safeParse(message).success);
  if (bad >= 0) return refused(ErrorCode.InvalidRequest, `Invalid Request: batch entry ${bad} is not a JSON-RPC 2.0 message`);
  return { ok: true, body: parsed as JSONRPCMessage[] };
}

function refused(code: ErrorCode, message: string): Envelope {
  return { ok: false, refusal: { jsonrpc: '2.0', id: null, error: { code, message } } };
}
