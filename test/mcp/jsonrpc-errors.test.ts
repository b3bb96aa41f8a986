import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { mcpClient, postMcp } from './support';

// PGlite boots and whole-app instances on a shared, loaded machine; no assertion depends on time.
setDefaultTimeout(120_000);

const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } };
const request = (id: number, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

/** A short sentence: no JSON (a schema dump) in it. */
const expectShortMessage = (message: string) => {
  expect(message.length).toBeLessThan(200);
  expect(message).not.toMatch(/[[{\n]/);
};

for (const backend of backends()) {
  describe(`POST /api/mcp JSON-RPC error codes on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const me = await orgWithKey(db);

    describe('error', () => {
      test('only a body that is not JSON is -32700 Parse error; HTTP 400, id null', async () => {
        for (const sent of ['{not json', '', '{"jsonrpc":"2.0","id":1,"method":"ping"', 'ping']) {
          const res = await postMcp(t, sent);
          expect(res.status).toBe(400);
          expectSecurityHeaders(res);
          const answer = await body(res);
          expect(answer).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } });
          expectShortMessage(answer.error.message);
        }
      });

      test('JSON that is not a JSON-RPC 2.0 request, an empty batch or a batch holding one is -32600 Invalid Request; HTTP 400, id null', async () => {
        const cases: unknown[] = [
          '{"foo":1}',
          '1',
          '"ping"',
          'null',
          'true',
          '[]',
          '[1]',
          { jsonrpc: '1.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', id: null, method: 'ping' },
          { jsonrpc: '2.0', id: 1.5, method: 'ping' },
          { jsonrpc: '2.0', id: 1, method: 5 },
          { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' },
          { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: 5 } },
          { id: 1, method: 'ping' },
          [request(1, 'ping'), { foo: 1 }],
          Array.from({ length: 101 }, (_, id) => request(id, 'ping')),
          [request(1, 'initialize', INITIALIZE), request(2, 'initialize', INITIALIZE)],
        ];
        for (const sent of cases) {
          const res = await postMcp(t, sent);
          expect({ sent, status: res.status }).toEqual({ sent, status: 400 });
          expectSecurityHeaders(res);
          const answer = await body(res);
          expect(answer).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) } });
          expectShortMessage(answer.error.message);
        }
      });

      test('missing or ill-typed params are -32602 Invalid params naming the field, with the request id (HTTP 200)', async () => {
        const cases: [unknown, string][] = [
          [request(1, 'tools/call', {}), 'params.name is required'],
          [request(2, 'tools/call', { name: 'search_docs', arguments: 'x' }), 'params.arguments'],
          [request(3, 'tools/call', { name: 7 }), 'params.name'],
          [request(4, 'resources/read', {}), 'params.uri is required'],
          [request(5, 'resources/read'), 'params is required'],
          [request(6, 'resources/read', { uri: 5 }), 'params.uri'],
          [request(7, 'prompts/get', { name: 5 }), 'params.name'],
          [request(8, 'prompts/get', { name: 'write_smart_link_rules', arguments: { goal: 5 } }), 'params.arguments.goal'],
          [request(9, 'tools/list', { cursor: 5 }), 'params.cursor'],
          [request(10, 'resources/list', { cursor: 5 }), 'params.cursor'],
          [request(11, 'resources/templates/list', { cursor: 5 }), 'params.cursor'],
          [request(12, 'prompts/list', { cursor: 5 }), 'params.cursor'],
          [request(13, 'initialize', {}), 'params.protocolVersion is required'],
        ];
        for (const [sent, field] of cases) {
          const res = await postMcp(t, sent);
          expect(res.status).toBe(200);
          const answer = await body(res);
          expect(answer).toEqual({ jsonrpc: '2.0', id: (sent as { id: number }).id, error: { code: -32602, message: expect.stringMatching(/^Invalid params: /) } });
          expect(answer.error.message).toContain(field);
          expectShortMessage(answer.error.message);
        }
      });

      test('a keyed tool with ill-typed arguments: -32602 with a key, the 401 without one', async () => {
        const sent = request(1, 'tools/call', { name: 'list_links', arguments: 'x' });
        expect(await body(await postMcp(t, sent, { authorization: `Bearer ${me.apiKey}` }))).toMatchObject({ id: 1, error: { code: -32602 } });
        expect((await postMcp(t, sent)).status).toBe(401);
      });

      test('in a batch, the request with bad params gets its -32602 in its place and the others are answered', async () => {
        const res = await postMcp(t, [request(1, 'ping'), request(2, 'tools/call', {}), request(3, 'tools/call', { name: 'search_docs', arguments: { query: 'postback' } })]);
        expect(res.status).toBe(200);
        const answers = await body(res);
        expect(answers.map((answer: { id: number }) => answer.id)).toEqual([1, 2, 3]);
        expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
        expect(answers[1]).toMatchObject({ id: 2, error: { code: -32602, message: 'Invalid params: params.name is required' } });
        expect(answers[2].result.structuredContent.results.length).toBeGreaterThan(0);
      });

      test('through the SDK client: a read without a URI is -32602; an unknown resource stays -32002', async () => {
        const client = await mcpClient(t);
        await expect(client.readResource({ uri: undefined as unknown as string })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('params.uri is required') });
        await expect(client.readResource({ uri: 'docs://nope.md' })).rejects.toMatchObject({ code: -32002 });
        await client.close();
      });
    });
  });
}
