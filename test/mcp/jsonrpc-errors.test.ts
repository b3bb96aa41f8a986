import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { expectSecurityHeaders } from '../support/http';
import { postMcp } from './support';

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
    });
  });
}
