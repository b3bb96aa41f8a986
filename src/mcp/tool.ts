/**
 * What an MCP tool is here: a TypeBox input and output schema (published as JSON Schema), a
 * function over the same services as the REST API, and a text rendering of its result.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { PivotDeps } from '../analytics/pivot';
import type { ApiKeyPrincipal } from '../auth/api-keys';
import type { KeyRateLimitDeps } from '../auth/key-rate-limit';
import type { Config } from '../config/config';
import { isUnstorableText } from '../db/errors';
import { HttpError, validationError } from '../http/errors';
import { strictBody } from '../http/strict-body';
import type { LinksDeps } from '../links/links.service';
import type { ExportDeps } from '../protect/export/export.service';
import type { RouteTestDeps } from '../smartlinks/route-test.service';
import type { Clock } from '../shared/ids';
import { jsonSchema } from './json-schema';

/**
 * The services the tools call: those of the links API, the route test, the reports (and their
 * clock) and the invalid-click export; and the limiter a key's requests are counted by.
 */
export type McpDeps = LinksDeps &
  RouteTestDeps &
  PivotDeps &
  ExportDeps &
  Pick<KeyRateLimitDeps, 'rateLimiter'> & { config: Pick<Config, 'version' | 'baseUrl' | 'rateLimit' | 'keyRateLimit'>; clock: Clock };

interface ToolSpec<I extends TSchema, O> {
  name: string;
  title: string;
  /** What a model reads to decide when to call it and what to pass. */
  description: string;
  /** What arguments are checked against before `run`. */
  input: I;
  /**
   * The input schema clients are shown, where it says more than `input` checks: a field the
   * service parses itself, so that each error names its exact path. Default: `input`.
   */
  shownInput?: TSchema;
  output: TSchema;
  annotations: ToolAnnotations;
  render(result: O): string;
}

/** Documentation: listed and callable without a key. */
export interface DocsTool<I extends TSchema = TSchema, O = unknown> extends ToolSpec<I, O> {
  keyed: false;
  run(args: Static<I>, deps: McpDeps): Promise<O>;
}

/** Analytics and management: listed and callable with an API key only, on its organization only. */
export interface KeyedTool<I extends TSchema = TSchema, O = unknown> extends ToolSpec<I, O> {
  keyed: true;
  run(args: Static<I>, deps: McpDeps, principal: ApiKeyPrincipal): Promise<O>;
}

// The registry holds tools of every input and output type; each tool's file checks its own.
export type McpTool = DocsTool<any, any> | KeyedTool<any, any>;

export const docsTool = <I extends TSchema, O>(tool: Omit<DocsTool<I, O>, 'keyed'>): DocsTool<I, O> => ({ ...tool, keyed: false });
export const keyedTool = <I extends TSchema, O>(tool: Omit<KeyedTool<I, O>, 'keyed'>): KeyedTool<I, O> => ({ ...tool, keyed: true });

export function describeTool(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.shownInput ?? tool.input),
    outputSchema: jsonSchema(tool.output),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/**
 * Runs a call: arguments checked against the input schema first (unknown fields included), so a
 * bad argument is a tool error naming the field, in the REST API's 400 body, never a transport
 * error. A refusal of the service (404, 400) is a tool error too; anything else is logged.
 */
export async function callTool(tool: McpTool, args: Record<string, unknown> | undefined, deps: McpDeps, principal: ApiKeyPrincipal | null): Promise<CallToolResult> {
  try {
    const input = args ?? {};
    strictBody(tool.input)({ body: input });
    const result = tool.keyed ? await tool.run(input, deps, principal!) : await tool.run(input, deps);
    return { content: [{ type: 'text', text: tool.render(result) }], structuredContent: result as Record<string, unknown> };
  } catch (error) {
    const refusal = error instanceof HttpError ? error : isUnstorableText(error) ? validationError({}, ['text must not contain NUL (U+0000) characters']) : undefined;
    if (refusal) return toolError(refusal.body);
    console.error(`mcp: tool ${tool.name} failed`, error);
    return toolError({ error: 'internal error' });
  }
}

/** A tool error carries the REST API's error body as its text, so the field and the reason are both in it. */
function toolError(body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
