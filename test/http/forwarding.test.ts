import { afterEach, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
import { FORWARD_PEER_HEADER, FORWARD_TOKEN_HEADER, forwardTo, startForwardReceiver, type ForwardReceiver } from '../../src/http/forwarding';

/**
 * A listener thread's forwarding, on real sockets: a public server whose fetch is forwardTo()
 * (as in listener.worker.ts), a receiver in front of an app that reports what it was given.
 */
interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  peer: string | null;
}

/** The loopback peer as a dual-stack socket reports it (the app normalises it later, http/client-ip.ts). */
const LOOPBACK = /^(::ffff:)?127\.0\.0\.1$/;

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function start(answer?: (request: Request) => Response) {
  const seen: Seen[] = [];
  let appServer: Server<undefined> | undefined;
  const app = {
    async fetch(request: Request) {
      seen.push({
        method: request.method,
        url: request.url,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
        peer: appServer!.requestIP(request)?.address ?? null,
      });
      return answer ? answer(request) : new Response('ok');
    },
  };
  const receiver: ForwardReceiver = startForwardReceiver(app);
  // The main thread's own public server: what the app's handlers see as `server`.
  const ownServer = Bun.serve({ port: 0, fetch: () => new Response('main') });
  appServer = receiver.serverFor(ownServer);
  const listener = Bun.serve({ port: 0, fetch: forwardTo(receiver.target) });
  cleanups.push(() => listener.stop(true), () => ownServer.stop(true), () => receiver.stop());
  return { seen, receiver, listener, url: `http://127.0.0.1:${listener.port}` };
}

describe('forwarding from a tracking listener thread to the main thread', () => {
  test('the request arrives unchanged, with the peer the listener saw and without the forwarding headers', async () => {
    const { seen, url } = start();
    const res = await fetch(`${url}/api/v1/links?limit=5&x=%20y`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k', host: 'go.example.com:8443' },
      body: JSON.stringify({ destination: 'https://example.com/' }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('http://go.example.com:8443/api/v1/links?limit=5&x=%20y');
    expect(request!.headers.authorization).toBe('Bearer k');
    expect(request!.headers['content-length']).toBe(String(JSON.stringify({ destination: 'https://example.com/' }).length));
    expect(request!.body).toBe(JSON.stringify({ destination: 'https://example.com/' }));
    expect(request!.peer).toMatch(LOOPBACK);
    expect(request!.headers[FORWARD_TOKEN_HEADER]).toBeUndefined();
    expect(request!.headers[FORWARD_PEER_HEADER]).toBeUndefined();
  });

  test('a chunked body streams through', async () => {
    const { seen, url } = start();
    const chunks = ['{"a":', '1,"b":', '"two"}'];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    const res = await fetch(`${url}/api/x`, { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(seen[0]!.body).toBe(chunks.join(''));
    expect(seen[0]!.headers['content-length']).toBeUndefined();
  });

  test('the answer comes back unchanged: status, headers, cookies, body; redirects are not followed', async () => {
    const { url } = start(() => {
      const headers = new Headers({ location: 'https://elsewhere.example/', 'x-custom': 'v', 'content-type': 'text/plain' });
      headers.append('set-cookie', 'a=1; Path=/');
      headers.append('set-cookie', 'b=2; Path=/');
      return new Response('moved', { status: 302, headers });
    });
    const res = await fetch(`${url}/dashboard`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://elsewhere.example/');
    expect(res.headers.get('x-custom')).toBe('v');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(await res.text()).toBe('moved');
  });

  test('a client cannot choose the peer address or pass as the listener', async () => {
    const { seen, url, receiver } = start();
    const res = await fetch(`${url}/api/v1/links`, { headers: { [FORWARD_PEER_HEADER]: '9.9.9.9', [FORWARD_TOKEN_HEADER]: 'guess' } });
    expect(res.status).toBe(200);
    // The listener overwrote both headers: the app sees the socket's peer.
    expect(seen[0]!.peer).toMatch(LOOPBACK);

    // Straight to the receiver: without this boot's token nothing reaches the app.
    for (const token of [undefined, 'guess', `${receiver.target.token}x`, receiver.target.token.slice(1)]) {
      const direct = await fetch(`${receiver.target.url}/api/v1/links`, {
        headers: { ...(token === undefined ? {} : { [FORWARD_TOKEN_HEADER]: token }), [FORWARD_PEER_HEADER]: '9.9.9.9' },
      });
      expect(direct.status).toBe(403);
      expect(await direct.json()).toEqual({ error: 'forbidden' });
    }
    expect(seen).toHaveLength(1);
  });

  test('requests the main thread took itself keep their socket address', async () => {
    const seen: (string | null)[] = [];
    let server: Server<undefined> | undefined;
    const receiver = startForwardReceiver({ fetch: () => new Response() });
    const own = Bun.serve({
      port: 0,
      fetch(request) {
        seen.push(server!.requestIP(request)?.address ?? null);
        return new Response('own');
      },
    });
    server = receiver.serverFor(own);
    cleanups.push(() => own.stop(true), () => receiver.stop());
    expect(await (await fetch(`http://127.0.0.1:${own.port}/`)).text()).toBe('own');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(LOOPBACK);
    // Everything else of the server is the server's own.
    expect(server.port).toBe(own.port);
  });

  test('a main thread that is gone answers 503 in the spec error shape', async () => {
    const receiver = startForwardReceiver({ fetch: () => new Response() });
    const target = receiver.target;
    await receiver.stop();
    const listener = Bun.serve({ port: 0, fetch: forwardTo(target) });
    cleanups.push(() => listener.stop(true));
    const res = await fetch(`http://127.0.0.1:${listener.port}/api/health`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'service unavailable' });
  });
});
