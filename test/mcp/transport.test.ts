import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import { TOOLS } from '../../src/mcp/server';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { awayFromWindowEnd } from '../support/rate-window';
import { mcpClient, MCP_PATH, postMcp } from './support';

// PGlite boots and whole-app instances on a shared, loaded machine; no assertion depends on time.
setDefaultTimeout(120_000);

const DOCS_TOOLS = ['search_docs', 'get_doc'];
const KEYED_TOOLS = TOOLS.filter((tool) => tool.keyed).map((tool) => tool.name);
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

for (const backend of backends()) {
  describe(`POST /api/mcp transport and keys on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const me = await orgWithKey(db);
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

    describe('happy', () => {
      test('without a key the SDK client connects and sees the documentation only', async () => {
        const client = await mcpClient(t);
        expect(client.getServerVersion()).toMatchObject({ name: 'svc-attribution', version: t.config.version });
        expect(client.getInstructions()).toContain('No valid API key was presented');
        expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(DOCS_TOOLS);
        expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['write_smart_link_rules']);
        expect((await client.listResources()).resources).toContainEqual({ uri: 'docs://smart-links.md', name: 'smart-links.md', title: 'Smart links: routing rules', mimeType: 'text/markdown' });
        expect(await client.listResourceTemplates()).toEqual({ resourceTemplates: [] });
        expect(await client.ping()).toEqual({});
        await client.close();
      });

      test('with a key every tool and prompt is listed, each tool with JSON Schemas and a description', async () => {
        const client = await mcpClient(t, me.apiKey);
        expect(client.getInstructions()).toContain('An API key was presented');
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual([...DOCS_TOOLS, ...KEYED_TOOLS]);
        expect(KEYED_TOOLS).toEqual(expect.arrayContaining(['update_smart_link_routing', 'set_link_status', 'test_smart_link_route', 'campaign_report', 'breakdown_report', 'cohort_report', 'invalid_clicks']));
        for (const tool of tools) {
          expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
          expect(tool.outputSchema).toMatchObject({ type: 'object' });
          expect(tool.description!.length).toBeGreaterThan(80);
          expect(JSON.stringify(tool.inputSchema)).not.toContain('"error"');
        }
        expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['write_smart_link_rules', 'weekly_campaign_review', 'diagnose_link']);
        await client.close();
      });

      test('a notification answers 202 with no body, with or without a key; answers carry no session id', async () => {
        for (const headers of [{}, bearer(me.apiKey)]) {
          const res = await postMcp(t, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
          expect(res.status).toBe(202);
          expectSecurityHeaders(res);
          expect(await res.text()).toBe('');
        }
        const answered = await postMcp(t, { jsonrpc: '2.0', id: 'a', method: 'ping' });
        expect(answered.status).toBe(200);
        expect(answered.headers.get('mcp-session-id')).toBeNull();
        expect(answered.headers.get('access-control-allow-origin')).toBeNull();
        expect(await body(answered)).toEqual({ jsonrpc: '2.0', id: 'a', result: {} });
      });

      test('any Accept header is served (the answer is always JSON); a batch gets an array', async () => {
        const plain = await t.request(MCP_PATH, { method: 'POST', json: { jsonrpc: '2.0', id: 1, method: 'ping' } });
        expect(plain.status).toBe(200);
        expect(plain.headers.get('content-type')).toBe('application/json');
        const batch = await postMcp(t, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, call(2, 'search_docs', { query: 'postback' })]);
        const answers = await body(batch);
        expect(answers.map((answer: { id: number }) => answer.id)).toEqual([1, 2]);
        expect(answers[1].result.structuredContent.results.length).toBeGreaterThan(0);
      });
    });

    describe('error', () => {
      test('GET, DELETE and PUT answer 405 naming POST, with the security headers', async () => {
        for (const method of ['GET', 'DELETE', 'PUT']) {
          const res = await t.request(MCP_PATH, { method, headers: { accept: 'text/event-stream' } });
          expect(res.status).toBe(405);
          expect(res.headers.get('allow')).toBe('POST');
          expectSecurityHeaders(res);
          expect(await body(res)).toEqual({ error: 'method not allowed' });
        }
      });

      test('an unknown method or tool is a JSON-RPC error (HTTP 200); a body that is not JSON by its type is 415', async () => {
        expect(await body(await postMcp(t, { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: {} }))).toMatchObject({ id: 1, error: { code: -32601 } });
        expect(await body(await postMcp(t, call(2, 'drop_database')))).toMatchObject({ id: 2, error: { code: -32602, message: expect.stringContaining('unknown tool') } });
        const typed = await postMcp(t, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'content-type': 'text/plain' });
        expect(typed.status).toBe(415);
      });
    });

    describe('security', () => {
      test('every analytics and management tool without a key: HTTP 401 {"error":"unauthorized"} with a Bearer challenge, through the SDK client too', async () => {
        for (const name of KEYED_TOOLS) {
          const res = await postMcp(t, call(1, name));
          expect(res.status).toBe(401);
          expectSecurityHeaders(res);
          expect(res.headers.get('www-authenticate')).toBe('Bearer');
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
        const client = await mcpClient(t);
        await expect(client.callTool({ name: 'list_links', arguments: {} })).rejects.toMatchObject({ code: 401 });
        await expect(client.getPrompt({ name: 'diagnose_link', arguments: { slug: 'x' } })).rejects.toMatchObject({ code: 401 });
        await client.close();
      });

      test('a keyed call inside a batch makes the whole request 401; a keyed call that is not JSON-RPC 2.0 gets the 400', async () => {
        const res = await postMcp(t, [call(1, 'search_docs', { query: 'links' }), call(2, 'list_links')]);
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        const malformed = await postMcp(t, { ...call(3, 'list_links'), jsonrpc: '1.0' });
        expect(malformed.status).toBe(400);
        expect(await body(malformed)).toMatchObject({ id: null, error: { code: -32600 } });
      });

      test('an Origin other than BASE_URL’s is 403 {"error":"forbidden"} before anything is read; no Origin or our own is served', async () => {
        const link = await insertLink(db, me.orgId);
        const foreign = ['http://evil.example', 'https://api.test.local', 'http://api.test.local:8080', 'http://sub.api.test.local', 'null'];
        for (const origin of foreign) {
          for (const [message, headers] of [
            [call(1, 'search_docs', { query: 'links' }), {}],
            [call(2, 'set_link_status', { link_id: link.linkId, status: 'paused' }), bearer(me.apiKey)],
            [call(3, 'list_links'), {}],
            ['{not json', {}],
          ] as const) {
            const res = await postMcp(t, message, { ...headers, origin });
            expect({ origin, status: res.status }).toEqual({ origin, status: 403 });
            expectSecurityHeaders(res);
            expect(await body(res)).toEqual({ error: 'forbidden' });
          }
        }
        expect((await db.query<{ status: string }>('SELECT status FROM links WHERE id = $1', [link.linkId]))[0]!.status).toBe('active');
        await expect(mcpClient(t, undefined, { origin: 'http://evil.example' })).rejects.toMatchObject({ code: 403 });

        const own = await postMcp(t, call(4, 'set_link_status', { link_id: link.linkId, status: 'paused' }), { ...bearer(me.apiKey), origin: 'http://api.test.local' });
        expect((await body(own)).result.structuredContent).toMatchObject({ changed: true, link: { status: 'paused' } });
        const client = await mcpClient(t, me.apiKey, { origin: 'http://api.test.local' });
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([...DOCS_TOOLS, ...KEYED_TOOLS]);
        await client.close();
      });

      test('an invalid Bearer counts as no key: documentation still answers, keyed tools get 401', async () => {
        for (const key of ['svc_live_' + 'x'.repeat(32), 'not-a-key', `${me.apiKey.slice(0, -1)}${me.apiKey.endsWith('a') ? 'b' : 'a'}`]) {
          const docs = await body(await postMcp(t, call(1, 'search_docs', { query: 'postback' }), bearer(key)));
          expect(docs.result.isError).toBeUndefined();
          const listed = await body(await postMcp(t, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, bearer(key)));
          expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(DOCS_TOOLS);
          expect((await postMcp(t, call(3, 'list_links'), bearer(key))).status).toBe(401);
        }
      });

      test('a revoked key fails at once: 401 on keyed tools, the documentation only in listings', async () => {
        const revoked = await orgWithKey(db);
        expect((await postMcp(t, call(1, 'list_links'), bearer(revoked.apiKey))).status).toBe(200);
        expect(await revokeApiKey(db, revoked.orgId, revoked.keyId)).toBe(true);
        expect((await postMcp(t, call(2, 'list_links'), bearer(revoked.apiKey))).status).toBe(401);
        const listed = await body(await postMcp(t, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, bearer(revoked.apiKey)));
        expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(DOCS_TOOLS);
      });
    });
  });
}

describe('POST /api/mcp rate limit', async () => {
  const [backend] = backends();
  const db = await backend!.create();
  const t = await testApp(db, { RATE_LIMIT: 'on' }, { mirror: false, workers: false });

  test('240 requests a minute per client, then 429 with Retry-After in the spec shape', async () => {
    await awayFromWindowEnd(30_000);
    for (let i = 0; i < 240; i++) {
      const res = await postMcp(t, { jsonrpc: '2.0', id: i, method: 'ping' });
      if (res.status !== 200) throw new Error(`request ${i + 1} answered ${res.status}`);
    }
    const limited = await postMcp(t, { jsonrpc: '2.0', id: 240, method: 'ping' });
    expect(limited.status).toBe(429);
    expectSecurityHeaders(limited);
    const answer = await body(limited);
    expect(answer).toEqual({ error: 'rate_limited', retry_after: expect.any(Number) });
    expect(limited.headers.get('retry-after')).toBe(String(answer.retry_after));
    // The MCP budget is its own: the REST API still answers.
    expect((await t.request('/api/v1/links')).status).toBe(401);
  });
});
