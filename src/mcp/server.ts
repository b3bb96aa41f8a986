/**
 * The MCP server of one request (the endpoint is stateless): the SDK's low-level Server, so the
 * tools publish their TypeBox schemas as they are and check arguments themselves. Without a
 * key it lists and serves the documentation only (docs/mcp.md, "Keys").
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiKeyPrincipal } from '../auth/api-keys';
import { HttpError } from '../http/errors';
import { docName, docsIndex } from './docs-index';
import { PROMPTS, type McpPrompt } from './prompts';
import { callTool, describeTool, type McpDeps, type McpTool } from './tool';
import { campaignReportTool, clicksSummaryTool, conversionsSummaryTool, installsSummaryTool } from './tools/analytics.tools';
import { breakdownReportTool } from './tools/breakdown.tools';
import { cohortReportTool } from './tools/cohorts.tools';
import { getDoc, searchDocs } from './tools/docs.tools';
import { getLinkTool, listLinksTool } from './tools/links.tools';
import { setLinkStatusTool, testSmartLinkRoute, updateSmartLinkRouting } from './tools/manage.tools';
import { invalidClicksTool } from './tools/protect.tools';

export const TOOLS: readonly McpTool[] = [
  searchDocs,
  getDoc,
  listLinksTool,
  getLinkTool,
  clicksSummaryTool,
  conversionsSummaryTool,
  installsSummaryTool,
  campaignReportTool,
  breakdownReportTool,
  cohortReportTool,
  invalidClicksTool,
  updateSmartLinkRouting,
  setLinkStatusTool,
  testSmartLinkRoute,
];

/** The listing of each tool, built once: its schemas never change while the process runs. */
const DESCRIBED = new Map(TOOLS.map((tool) => [tool.name, describeTool(tool)]));
const KEYED_TOOLS = new Set(TOOLS.filter((tool) => tool.keyed).map((tool) => tool.name));
const KEYED_PROMPTS = new Set(PROMPTS.filter((prompt) => prompt.keyed).map((prompt) => prompt.name));
/** MCP's code for an unknown resource URI. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * Whether a JSON-RPC message (or batch, each checked by envelope.ts) calls a tool or gets a prompt
 * that needs an API key. Read before the SDK sees the request, so such a call without a valid key is an HTTP 401.
 */
export function requiresKey(message: JSONRPCMessage | JSONRPCMessage[]): boolean {
  if (Array.isArray(message)) return message.some(requiresKey);
  if (!('method' in message)) return false;
  const name = (message.params as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string') return false;
  return (message.method === 'tools/call' && KEYED_TOOLS.has(name)) || (message.method === 'prompts/get' && KEYED_PROMPTS.has(name));
}

function instructions(principal: ApiKeyPrincipal | null): string {
  const scope = principal
    ? "An API key was presented: every tool is available, on this key's organization only."
    : 'No valid API key was presented (header Authorization: Bearer svc_live_...): only the documentation tools, resources and the write_smart_link_rules prompt are available.';
  return (
    'Click tracking, attribution and conversion service. search_docs and get_doc answer how it works; list_links and get_link show links; ' +
    'clicks_summary, conversions_summary, installs_summary, campaign_report, breakdown_report, cohort_report and invalid_clicks report on a period; update_smart_link_routing ' +
    `and set_link_status change a link (full replacements, safe to repeat); test_smart_link_route tries a visit without recording it. ${scope}`
  );
}

/**
 * A refusal of a prompt's argument (a 400 or 404 of the services) as the JSON-RPC error a client
 * expects, the REST error body as its message; anything else is logged and answered without internals.
 */
function promptError(error: unknown): never {
  if (error instanceof HttpError) throw new McpError(ErrorCode.InvalidParams, JSON.stringify(error.body));
  console.error('mcp: prompt failed', error);
  throw new McpError(ErrorCode.InternalError, 'internal error');
}

export function createMcpServer(deps: McpDeps, principal: ApiKeyPrincipal | null): Server {
  const server = new Server(
    { name: 'svc-attribution', title: 'Click tracking and attribution', version: deps.config.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: instructions(principal) },
  );
  const tools = TOOLS.filter((tool) => principal || !tool.keyed);
  const prompts = PROMPTS.filter((prompt) => principal || !prompt.keyed);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => DESCRIBED.get(tool.name)!) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`);
    return callTool(tool, request.params.arguments, deps, principal);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await docsIndex()).docs.map((doc) => ({ uri: `docs://${doc.name}`, name: doc.name, title: doc.title, mimeType: 'text/markdown' })),
  }));
  // The capability `resources` promises the listing; the pages are fixed URIs, so there are no templates.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const name = request.params.uri.startsWith('docs://') ? docName(request.params.uri) : undefined;
    const doc = name === undefined ? undefined : (await docsIndex()).doc(name);
    if (!doc) throw new McpError(RESOURCE_NOT_FOUND, 'resource not found', { uri: request.params.uri });
    return { contents: [{ uri: `docs://${doc.name}`, mimeType: 'text/markdown', text: doc.text }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: prompts.map(({ name, title, description, arguments: args }: McpPrompt) => ({ name, title, description, arguments: args })) }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const prompt = prompts.find((candidate) => candidate.name === request.params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `unknown prompt: ${request.params.name}`);
    return prompt.get(request.params.arguments ?? {}, deps, principal).catch(promptError);
  });
  return server;
}
