import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import type { Server } from 'bun';
import { FORWARD_PEER_HEADER, FORWARD_TOKEN_HEADER, forwardTo, startForwardReceiver, type ForwardReceiver } from '../../src/http/forwarding';
import { HttpError } from '../../src/http/errors';
import { MAX_BODY_BYTES } from '../../src/http/http.plugin';
import { SERVE_OPTIONS } from '../../src/http/serve-options';
import { behindHttpRules } from '../support/http-harness';
import { exchange, upload, type RawAnswer } from '../support/raw-http';

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

/**
 * Bodies through a listener thread, beside the same app on a socket of its own (as the main
 * thread serves it): the app behind the real HTTP rules, reporting what it read of each body.
 */
interface Read {
  length: number;
  sha256: string;
  contentLength: string | null;
}

function startBodyApp() {
  const reads: (Read | 'failed')[] = [];
  const { base, seal } = behindHttpRules();
  const app = base
    .post('/raw', async ({ request }) => {
      try {
        const bytes = new Uint8Array(await request.arrayBuffer());
        reads.push({ length: bytes.length, sha256: sha256(bytes), contentLength: request.headers.get('content-length') });
        return { bytes: bytes.length };
      } catch (error) {
        reads.push('failed');
        // The rules' own refusal (the 413) stands; a body cut off by its sender gets no answer anyone hears.
        if (error instanceof HttpError) throw error;
        return new Response('body cut off', { status: 400 });
      }
    })
    .post('/unread', () => new Response('not read', { status: 401 }));
  seal(app);
  const receiver = startForwardReceiver(app);
  const direct = Bun.serve({ port: 0, ...SERVE_OPTIONS, fetch: (request) => app.fetch(request) });
  const listener = Bun.serve({ port: 0, ...SERVE_OPTIONS, fetch: forwardTo(receiver.target) });
  cleanups.push(() => listener.stop(true), () => direct.stop(true), () => receiver.stop());
  return { reads, direct: direct.port!, listener: listener.port!, url: `http://127.0.0.1:${listener.port}` };
}

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
const undated = (answer: RawAnswer) => answer.raw.replace(/\r\nDate: [^\r]*/i, '');

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let at = 0; at < length; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536));
  return bytes;
}

/** `bytes` as a chunked body, in pieces of 64 KiB. */
function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 65_536));
      at += 65_536;
    },
  });
}

describe('request bodies through a listener thread', () => {
  test("a declared length over the limit is refused unread, with the app's own 413 to the byte", async () => {
    const { reads, direct, listener } = startBodyApp();
    for (const [method, path] of [['POST', '/raw'], ['POST', '/api/sdk/v1/ping'], ['GET', '/raw']]) {
      // Only the head is sent: an answer can only come from a server that does not wait for the body.
      const head = `${method} ${path} HTTP/1.1\r\nHost: api.test.local\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`;
      const own = await exchange(direct, head);
      const forwarded = await exchange(listener, head);
      expect(forwarded.status).toBe(413);
      expect(JSON.parse(forwarded.body)).toEqual({ error: 'payload too large' });
      expect(undated(forwarded)).toBe(undated(own));
    }
    // The CORS headers of a browser-called path came along.
    const sdk = await exchange(listener, `POST /api/sdk/v1/ping HTTP/1.1\r\nHost: a.test\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`);
    expect(sdk.headers['access-control-allow-origin']).toBe('*');
    expect(reads).toEqual([]);
  });

  test('a chunked body is stopped with the 413 once it passes the limit', async () => {
    const { reads, direct, listener } = startBodyApp();
    const own = await upload(direct, '/raw', 4 * MAX_BODY_BYTES, { declared: false });
    const forwarded = await upload(listener, '/raw', 4 * MAX_BODY_BYTES, { declared: false });
    expect(forwarded.status).toBe(413);
    expect(JSON.parse(forwarded.body)).toEqual({ error: 'payload too large' });
    expect(undated(forwarded)).toBe(undated(own));
    // The app read neither body to its end.
    expect(reads).toEqual(['failed', 'failed']);
  });

  test('the thread itself counts a chunked body: an app that reads without limit gets no more than the limit', async () => {
    let received = 0;
    const receiver = startForwardReceiver({
      async fetch(request: Request) {
        try {
          for await (const chunk of request.body!) received += chunk.byteLength;
        } catch {}
        return new Response(`read ${received}`);
      },
    });
    const listener = Bun.serve({ port: 0, ...SERVE_OPTIONS, fetch: forwardTo(receiver.target) });
    cleanups.push(() => listener.stop(true), () => receiver.stop());
    const answer = await upload(listener.port!, '/raw', 4 * MAX_BODY_BYTES, { declared: false });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: 'payload too large' });
    expect(received).toBeLessThanOrEqual(MAX_BODY_BYTES);
  });

  test('a body up to the limit arrives intact, declared or chunked', async () => {
    const { reads, url } = startBodyApp();
    const bytes = randomBytes(MAX_BODY_BYTES);
    const declared = await fetch(`${url}/raw`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
    expect(declared.status).toBe(200);
    const streamed = await fetch(`${url}/raw`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: chunked(bytes) });
    expect(streamed.status).toBe(200);
    expect(reads).toEqual([
      { length: MAX_BODY_BYTES, sha256: sha256(bytes), contentLength: String(MAX_BODY_BYTES) },
      { length: MAX_BODY_BYTES, sha256: sha256(bytes), contentLength: null },
    ]);
  });

  test('a client hanging up mid-body ends the forwarded request, and the thread goes on', async () => {
    const { reads, url, listener } = startBodyApp();
    const logged = spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (const declared of [true, false]) await upload(listener, '/raw', 4_000_000, { declared, hangUpAfter: 1_000_000 });
      const deadline = Date.now() + 5_000;
      while (reads.length < 2 && Date.now() < deadline) await Bun.sleep(20);
      // The app's reads were cut off, not left waiting for bytes that will never come.
      expect(reads).toEqual(['failed', 'failed']);
      expect(logged.mock.calls.filter((call) => String(call[0]).includes('forwarding'))).toEqual([]);
    } finally {
      logged.mockRestore();
    }
    const res = await fetch(`${url}/raw`, { method: 'POST', body: 'abc' });
    expect(await res.json()).toEqual({ bytes: 3 });
  });

  test('an answer given without reading the body reaches the client, and the connection serves on', async () => {
    const { url } = startBodyApp();
    for (const body of [new Uint8Array(3_000_000), chunked(new Uint8Array(3_000_000))]) {
      const res = await fetch(`${url}/unread`, { method: 'POST', body });
      expect(res.status).toBe(401);
      expect(await res.text()).toBe('not read');
      // The same keep-alive connection.
      expect(await (await fetch(`${url}/raw`, { method: 'POST', body: 'abcd' })).json()).toEqual({ bytes: 4 });
    }
  });
});
