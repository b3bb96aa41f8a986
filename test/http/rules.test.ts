import { describe, expect, test } from 'bun:test';
import { t as schema } from 'elysia';
import { badRequest, conflict, gone, notFound, unauthorized, fieldError } from '../../src/http/errors';
import { MAX_BODY_BYTES } from '../../src/http/http.plugin';
import { body } from '../support/app';
import { expectSecurityHeaders } from '../support/http';
import { behindHttpRules } from '../support/http-harness';

/** Test-only routes behind the real HTTP rules. */
function rulesApp() {
  const { base, seal } = behindHttpRules();
  const app = base
    .get('/ok', () => ({ ok: true }))
    .post('/created', ({ set }) => {
      set.status = 201;
      return { id: 'x' };
    })
    .post(
      '/api/v1/rows',
      ({ body }) => ({ rows: body.rows.length }),
      {
        body: schema.Object({
          rows: schema.Array(schema.Object({ day: schema.String({ format: 'date' }), cost: schema.Number({ minimum: 0 }) }), { minItems: 1 }),
          mode: schema.Optional(schema.Union([schema.Literal('fast'), schema.Literal('safe')])),
        }),
      },
    )
    .get('/api/v1/list', ({ query }) => query, { query: schema.Object({ limit: schema.Optional(schema.Integer({ minimum: 1, maximum: 1000 })) }) })
    .get('/api/v1/items/:id', ({ params }) => params, { params: schema.Object({ id: schema.String({ minLength: 4 }) }) })
    .get('/boom', () => {
      throw new Error('connection string postgres://admin:hunter2@db/prod is wrong');
    })
    .get('/boom-async', async () => {
      await Bun.sleep(1);
      throw new TypeError("Cannot read properties of undefined (reading 'secret')");
    })
    .get('/throws/:kind', ({ params }) => {
      throw { unauthorized: unauthorized(), notFound: notFound('install not found'), conflict: conflict('slug taken'), gone: gone(), bad: badRequest('force_transparent needs url'), field: fieldError('destination', 'must be an absolute http(s) URL') }[params.kind];
    })
    .get('/redirect', () => new Response(null, { status: 302, headers: { Location: 'https://shop.example.com/' } }))
    .get('/redirect-static', () => Response.redirect('https://shop.example.com/', 302))
    .get('/redirect-set', ({ set }) => {
      set.status = 302;
      set.headers.location = 'https://shop.example.com/';
    })
    .post('/raw', async ({ request }) => ({ bytes: (await request.arrayBuffer()).byteLength }))
    .post('/api/sdk/v1/ping', () => ({ pong: true }))
    .post('/api/protect/beacon', () => ({ ok: true }));
  return seal(app);
}

describe('HTTP rules', () => {
  const request = rulesApp();

  describe('error bodies', () => {
    test('validation errors answer 400 (never 422) with dotted field paths', async () => {
      const res = await request('/api/v1/rows', { method: 'POST', json: { rows: [{ day: '2026-01-01', cost: 1 }, { day: 'monday', cost: -1 }], mode: 'turbo' } });
      expect(res.status).toBe(400);
      expectSecurityHeaders(res);
      expect(await body(res)).toEqual({
        error: {
          formErrors: [],
          fieldErrors: {
            'rows.1.day': ["Expected string to match 'date' format"],
            'rows.1.cost': ['Expected number to be greater or equal to 0'],
            mode: ['Expected one of: "fast", "safe"'],
          },
        },
      });
    });

    test('a missing field says it is required, once', async () => {
      const res = await request('/api/v1/rows', { method: 'POST', json: {} });
      expect(res.status).toBe(400);
      expect((await body(res)).error.fieldErrors).toEqual({ rows: ['Expected required property'] });
    });

    test('a body of the wrong shape is a form error', async () => {
      const res = await request('/api/v1/rows', { method: 'POST', json: [1, 2] });
      expect(res.status).toBe(400);
      const error = (await body(res)).error;
      expect(error.formErrors.length).toBeGreaterThan(0);
    });

    test('query and path values are named even when they were coerced', async () => {
      for (const [path, field] of [
        ['/api/v1/list?limit=0', 'limit'],
        ['/api/v1/list?limit=1001', 'limit'],
        ['/api/v1/list?limit=ten', 'limit'],
        ['/api/v1/items/abc', 'id'],
      ] as const) {
        const res = await request(path);
        expect(res.status).toBe(400);
        const error = (await body(res)).error;
        expect(Object.keys(error.fieldErrors)).toEqual([field]);
        expect(error.formErrors).toEqual([]);
      }
      expect(await body(await request('/api/v1/list?limit=7'))).toEqual({ limit: 7 });
    });

    test('a body that is not JSON answers 400 in the validation shape', async () => {
      const res = await request('/api/v1/rows', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"rows": [' });
      expect(res.status).toBe(400);
      expect(await body(res)).toEqual({ error: { formErrors: ['the body is not valid JSON'], fieldErrors: {} } });
    });

    test('thrown HttpErrors answer with their short string bodies', async () => {
      const expected: Record<string, [number, unknown]> = {
        unauthorized: [401, { error: 'unauthorized' }],
        notFound: [404, { error: 'install not found' }],
        conflict: [409, { error: 'slug taken' }],
        gone: [410, { error: 'gone' }],
        bad: [400, { error: 'force_transparent needs url' }],
        field: [400, { error: { formErrors: [], fieldErrors: { destination: ['must be an absolute http(s) URL'] } } }],
      };
      for (const [kind, [status, json]] of Object.entries(expected)) {
        const res = await request(`/throws/${kind}`);
        expect(res.status).toBe(status);
        expect(await body(res)).toEqual(json);
        expectSecurityHeaders(res);
      }
    });

    test('an unknown error answers 500 {"error":"internal error"} and reveals nothing', async () => {
      for (const path of ['/boom', '/boom-async']) {
        const res = await request(path);
        expect(res.status).toBe(500);
        expectSecurityHeaders(res);
        const text = await res.text();
        expect(text).toBe('{"error":"internal error"}');
      }
    });
  });

  describe('routing', () => {
    test('unknown paths answer 404 JSON', async () => {
      for (const path of ['/nope', '/api/v1/nope', '/api/v1/items/abcd/extra']) {
        const res = await request(path);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toStartWith('application/json');
        expect(await body(res)).toEqual({ error: 'not found' });
        expectSecurityHeaders(res);
      }
    });

    test('an unlisted method on a listed path answers 405 with Allow', async () => {
      for (const [method, path, allow] of [
        ['DELETE', '/ok', 'GET'],
        ['PUT', '/api/v1/rows', 'POST'],
        ['PATCH', '/api/v1/items/abcd', 'GET'],
        ['GET', '/created', 'POST'],
      ] as const) {
        const res = await request(path, { method });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe(allow);
        expect(await body(res)).toEqual({ error: 'method not allowed' });
        expectSecurityHeaders(res);
      }
    });
  });

  describe('headers', () => {
    test('the three security headers are on every kind of response', async () => {
      const responses = [
        await request('/ok'),
        await request('/created', { method: 'POST' }),
        await request('/redirect'),
        await request('/api/sdk/v1/ping', { method: 'OPTIONS' }),
        await request('/api/v1/rows', { method: 'POST', json: {} }),
        await request('/throws/unauthorized'),
        await request('/nope'),
        await request('/ok', { method: 'DELETE' }),
        await request('/raw', { method: 'POST', headers: { 'content-length': String(MAX_BODY_BYTES + 1) }, body: 'x' }),
        await request('/boom'),
      ];
      expect(responses.map((res) => res.status)).toEqual([200, 201, 302, 204, 400, 401, 404, 405, 413, 500]);
      for (const res of responses) expectSecurityHeaders(res);
    });

    test('redirects add Cache-Control: no-store', async () => {
      for (const path of ['/redirect', '/redirect-set', '/redirect-static']) {
        const res = await request(path);
        expect(res.status).toBe(302);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('location')).toBe('https://shop.example.com/');
      }
      expect((await request('/ok')).headers.get('cache-control')).toBeNull();
    });
  });

  describe('CORS', () => {
    test('SDK endpoints and the beacon answer OPTIONS with Access-Control-Allow-Origin: *', async () => {
      for (const path of ['/api/sdk/v1/ping', '/api/sdk/v1/install', '/api/protect/beacon']) {
        const res = await request(path, { method: 'OPTIONS', headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' } });
        expect(res.status).toBe(204);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(res.headers.get('access-control-allow-headers')).toContain('X-SDK-Key');
        expectSecurityHeaders(res);
      }
      const answered = await request('/api/sdk/v1/ping', { method: 'POST', headers: { origin: 'https://shop.example.com' } });
      expect(answered.headers.get('access-control-allow-origin')).toBe('*');
      // A page can only read a 429's Retry-After (the SDK's retry rule) when it is exposed.
      expect(answered.headers.get('access-control-expose-headers')).toBe('Retry-After');
    });

    test('the REST API sends no CORS headers, not even to a browser origin', async () => {
      for (const res of [
        await request('/api/v1/list', { headers: { origin: 'https://evil.example' } }),
        await request('/api/v1/rows', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } }),
        await request('/api/v1/rows', { method: 'POST', json: {}, headers: { origin: 'https://evil.example' } }),
      ]) {
        expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
      }
    });
  });

  describe('body size limit (5 MiB)', () => {
    test('a declared length above the limit answers 413 before the body is read', async () => {
      const res = await request('/api/v1/rows', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(MAX_BODY_BYTES + 1) },
        body: '{}',
      });
      expect(res.status).toBe(413);
      expect(await body(res)).toEqual({ error: 'payload too large' });
    });

    test('a chunked body is cut off once it passes the limit, whoever reads it', async () => {
      const stream = (bytes: number) =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            const chunk = new Uint8Array(64 * 1024).fill(32);
            for (let sent = 0; sent < bytes; sent += chunk.length) controller.enqueue(chunk);
            controller.close();
          },
        });
      const chunked = (path: string, bytes: number, contentType = 'application/octet-stream') =>
        request(path, { method: 'POST', headers: { 'transfer-encoding': 'chunked', 'content-type': contentType }, body: stream(bytes), duplex: 'half' } as RequestInit);
      const raw = await chunked('/raw', MAX_BODY_BYTES + 64 * 1024);
      expect(raw.status).toBe(413);
      expect(await body(raw)).toEqual({ error: 'payload too large' });
      const parsed = await chunked('/api/v1/rows', MAX_BODY_BYTES + 64 * 1024, 'application/json');
      expect(parsed.status).toBe(413);
      const small = await chunked('/raw', MAX_BODY_BYTES - 64 * 1024);
      expect(small.status).toBe(200);
      expect(await body(small)).toEqual({ bytes: MAX_BODY_BYTES - 64 * 1024 });
    });

    test('a body of exactly the limit is accepted', async () => {
      const payload = new Uint8Array(MAX_BODY_BYTES).fill(120);
      const res = await request('/raw', { method: 'POST', headers: { 'content-length': String(MAX_BODY_BYTES) }, body: payload });
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({ bytes: MAX_BODY_BYTES });
    });
  });
});
