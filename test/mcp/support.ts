import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestApp } from '../support/app';

export const MCP_PATH = '/api/mcp';

/** What a client talks to: a real server's base URL, or a test app (its dispatch stands in for the socket). */
export type McpTarget = { url: string } | TestApp;

/** The SDK's own client over its streamable HTTP transport, connected (initialize done), with the key and headers if given. */
export async function mcpClient(target: McpTarget, apiKey?: string, headers: Record<string, string> = {}): Promise<Client> {
  const inProcess = 'request' in target;
  const base = inProcess ? 'http://api.test.local' : target.url;
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${MCP_PATH}`), {
    requestInit: { headers: { ...headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) } },
    fetch: inProcess ? (url, init) => target.request(String(url), init) : undefined,
  });
  const client = new Client({ name: 'svc-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** One JSON-RPC body posted as a client would, for the cases the SDK client never sends. */
export function postMcp(target: McpTarget, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
  return 'request' in target ? target.request(MCP_PATH, init) : fetch(`${target.url}${MCP_PATH}`, init);
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const [first] = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
  return first?.type === 'text' ? (first.text ?? '') : '';
}
