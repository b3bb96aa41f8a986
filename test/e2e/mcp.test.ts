import '../support/slow-suite';
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOLS } from '../../src/mcp/server';
import { expectSecurityHeaders } from '../support/http';
import { apiKeyOver } from '../support/over-http';
import type { RunningServer } from '../support/server';
import { mcpClient, postMcp, textOf } from '../mcp/support';
import { e2eBackends, startTrackingServer } from './tracking-support';

// Real server processes: each boot opens a store and a DuckDB mirror.
setDefaultTimeout(180_000);

/**
 * POST /api/mcp on the real server, through the SDK's own Client and StreamableHTTPClientTransport
 * over a socket: every tool listed and called with and without a key, another organization's key
 * sees nothing, a repeated management call changes nothing, a notification answers 202.
 */
const RULES = { version: 1, rules: [{ name: 'ios', if: { os: 'ios' }, then: { store: 'https://apps.apple.com/app/id1' } }], fallback: { url: 'https://shop.example.com/' } };
const WEEK = { from: '2026-03-01', to: '2026-03-07' };

async function createSmartLink(server: RunningServer, apiKey: string): Promise<{ id: string; slug: string }> {
  const res = await fetch(`${server.url}/api/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ kind: 'smart', destination: 'https://shop.example.com/', rules: RULES }),
  });
  if (res.status !== 201) throw new Error(`create link: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; slug: string };
}

/** A call that must succeed: its structured result (the client has checked it against the output schema). */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${textOf(result)}`);
  expect(textOf(result).length).toBeGreaterThan(0);
  return result.structuredContent;
}

for (const backend of await e2eBackends()) {
  describe(`MCP on a real server (${backend.name})`, async () => {
    const server = await startTrackingServer(backend);
    const clients: Client[] = [];
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      await server.stop();
    });
    const connect = async (apiKey?: string) => {
      const client = await mcpClient(server, apiKey);
      clients.push(client);
      return client;
    };
    const mine = await apiKeyOver(server);
    const theirs = await apiKeyOver(server);
    const link = await createSmartLink(server, mine);
    const argsOf: Record<string, Record<string, unknown>> = {
      search_docs: { query: 'smart link rules' },
      get_doc: { path: 'mcp.md' },
      list_links: {},
      get_link: { id: link.id },
      clicks_summary: { ...WEEK, group_by: 'link' },
      conversions_summary: { ...WEEK, group_by: 'event' },
      installs_summary: { ...WEEK, group_by: 'method' },
      campaign_report: WEEK,
      breakdown_report: { ...WEEK, group_by: 'country,os' },
      cohort_report: { ...WEEK, group_by: 'campaign,day', days: '0,1,7' },
      invalid_clicks: { days: 7 },
      update_smart_link_routing: { link_id: link.id, rules: RULES },
      set_link_status: { link_id: link.id, status: 'active' },
      test_smart_link_route: { slug: link.slug, os: 'ios' },
    };

    test('without a key: the documentation tools are listed and answer; every other tool is an HTTP 401', async () => {
      const client = await connect();
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      expect(listed).toEqual(['search_docs', 'get_doc']);
      expect((await ok(client, 'search_docs', argsOf.search_docs!)).results.length).toBeGreaterThan(0);
      expect((await ok(client, 'get_doc', argsOf.get_doc!)).title).toBe('MCP server: connecting AI assistants');
      for (const tool of TOOLS.filter((candidate) => candidate.keyed)) {
        await expect(client.callTool({ name: tool.name, arguments: argsOf[tool.name] })).rejects.toMatchObject({ code: 401 });
      }
    });

    test('with a key: every tool is listed and answers, on this organization’s data', async () => {
      const client = await connect(mine);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
      for (const tool of TOOLS) await ok(client, tool.name, argsOf[tool.name]!);
      expect((await ok(client, 'list_links', {})).links.map((l: { id: string }) => l.id)).toEqual([link.id]);
      expect((await ok(client, 'test_smart_link_route', argsOf.test_smart_link_route!)).decision).toMatchObject({ rule_name: 'ios', action: 'store' });
    });

    test('management calls repeated change nothing the second time', async () => {
      const client = await connect(mine);
      const rules = [{ name: 'all', if: {}, then: { url: 'https://e2e.example.com/' } }];
      const first = await ok(client, 'update_smart_link_routing', { link_id: link.id, rules });
      const second = await ok(client, 'update_smart_link_routing', { link_id: link.id, rules });
      expect(first.changed).toBe(true);
      expect(second).toEqual({ changed: false, link: first.link });
      const paused = await ok(client, 'set_link_status', { link_id: link.id, status: 'paused' });
      expect(await ok(client, 'set_link_status', { link_id: link.id, status: 'paused' })).toEqual({ changed: false, link: paused.link });
      const desktop = { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' } } as const;
      expect((await fetch(`${server.url}/l/${link.slug}`, desktop)).status).toBe(404);
      await ok(client, 'set_link_status', { link_id: link.id, status: 'active' });
      const visit = await fetch(`${server.url}/l/${link.slug}`, desktop);
      expect(visit.status).toBe(302);
      expect(visit.headers.get('location')).toStartWith('https://e2e.example.com/');
    });

    test("another organization's key sees nothing of this one", async () => {
      const client = await connect(theirs);
      expect(await ok(client, 'list_links', {})).toEqual({ links: [] });
      for (const [name, args] of [['get_link', { id: link.id }], ['get_link', { slug: link.slug }], ['set_link_status', { link_id: link.id, status: 'paused' }], ['test_smart_link_route', { slug: link.slug }]] as const) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError).toBe(true);
        expect(JSON.parse(textOf(result))).toEqual({ error: 'link not found' });
      }
      expect((await ok(client, 'clicks_summary', { ...WEEK, group_by: 'link' })).rows).toEqual([]);
      expect((await ok(client, 'invalid_clicks', {})).rows).toEqual([]);
    });

    test('a notification answers 202 with no body; GET and DELETE answer 405', async () => {
      const notified = await postMcp(server, { jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(notified.status).toBe(202);
      expectSecurityHeaders(notified);
      expect(await notified.text()).toBe('');
      for (const method of ['GET', 'DELETE']) expect((await fetch(`${server.url}/api/mcp`, { method })).status).toBe(405);
    });

    test('the audit log holds one row per change, each with the key (read once the server has stopped)', async () => {
      await server.stop();
      const rows = await backend.query<{ n: number; keys: number }>(
        server.dataDir,
        "SELECT count(*)::int AS n, count(DISTINCT api_key_id)::int AS keys FROM audit_log WHERE entity = 'link' AND entity_id = $1 AND detail->>'via' = 'mcp'",
        [link.id],
      );
      // The rules replaced once, paused once, resumed once: repeats (the link's own rules, its own status) and the other key wrote nothing.
      expect(rows).toEqual([{ n: 3, keys: 1 }]);
    });
  });
}
