import { afterEach, expect, spyOn, test } from 'bun:test';
import type { Server } from 'bun';
import { SERVE_OPTIONS } from '../../src/http/serve-options';
import { expectSecurityHeaders } from '../support/http';

/** A server on the service's own options whose handlers throw, as a bug in one would. */
let server: Server<undefined> | undefined;
afterEach(() => {
  server?.stop(true);
  server = undefined;
});

const SECRET = 'the-database-password-is-hunter2';

function throwingServer(): Server<undefined> {
  server = Bun.serve({
    ...SERVE_OPTIONS,
    port: 0,
    routes: {
      '/c/:slug': () => {
        throw new Error(SECRET);
      },
    },
    fetch: () => {
      throw new Error(SECRET);
    },
  });
  return server;
}

test('the service never listens in development mode, whatever NODE_ENV says', () => {
  expect(process.env.NODE_ENV).not.toBe('production');
  expect(throwingServer().development).toBe(false);
});

for (const path of ['/c/abc', '/api/v1/links']) {
  test(`an error escaping a handler (${path}) is a 500 in the spec's Error shape, with no message or stack`, async () => {
    const logged = spyOn(console, 'error').mockImplementation(() => {});
    try {
      const response = await fetch(`http://127.0.0.1:${throwingServer().port}${path}`);
      const body = await response.text();
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toStartWith('application/json');
      expectSecurityHeaders(response);
      expect(JSON.parse(body)).toEqual({ error: 'internal error' });
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain('at ');
      // The operator still sees what went wrong.
      expect(String(logged.mock.calls[0]?.[1])).toContain(SECRET);
    } finally {
      logged.mockRestore();
    }
  });
}
