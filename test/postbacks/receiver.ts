import { afterAll } from 'bun:test';
import type { Server } from 'bun';

export interface Received {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/**
 * A local HTTP server (127.0.0.1 unless `at` says otherwise) standing in for an advertiser's
 * postback endpoint. `answer` says what the n-th request (0-based) gets; `'hang'` never answers.
 */
export function receiver(answer: (n: number, request: Request) => number | 'hang' | Response, at: { hostname?: string; port?: number } = {}) {
  const received: Received[] = [];
  const hostname = at.hostname ?? '127.0.0.1';
  const server: Server<undefined> = Bun.serve({
    hostname,
    port: at.port ?? 0,
    async fetch(request) {
      const n = received.length;
      received.push({ method: request.method, url: new URL(request.url), headers: request.headers, body: await request.text() });
      const reply = answer(n, request);
      if (reply === 'hang') return new Promise<Response>(() => {});
      if (reply instanceof Response) return reply;
      return new Response(reply >= 200 && reply < 300 ? 'ok' : 'nope', { status: reply });
    },
  });
  stopAll.push(() => server.stop(true));
  return { received, port: server.port!, url: `http://${hostname}:${server.port}`, stop: () => server.stop(true) };
}

const stopAll: (() => unknown)[] = [];
afterAll(async () => {
  for (const stop of stopAll.splice(0)) await stop();
});
