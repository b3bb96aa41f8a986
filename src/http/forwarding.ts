import type { Server } from 'bun';
import { constantTimeEqual, randomToken } from '../shared/crypto/secrets';
import { HttpError, payloadTooLarge } from './errors';
import { capStream, declaresTooLarge, httpErrorResponse, jsonResponse, MAX_BODY_BYTES, pathOf } from './http.plugin';
import { SERVE_OPTIONS } from './serve-options';

/**
 * How a tracking listener thread hands the requests it does not answer (all but GET /c and GET /i)
 * to the main thread's app: over loopback, to a receiver on 127.0.0.1 that takes only this boot's
 * token, with the peer address the thread saw, which the app reads through `server.requestIP()`.
 * The listener overwrites both headers, so a client can set neither (docs/click-pipeline.md, "Listener threads").
 */
export const FORWARD_TOKEN_HEADER = 'x-svc-forward-token';
export const FORWARD_PEER_HEADER = 'x-svc-forward-peer';

/** Where and how a listener forwards: the receiver's URL and this boot's token. */
export interface ForwardTarget {
  url: string;
  token: string;
}

export interface ForwardReceiver {
  target: ForwardTarget;
  /**
   * The public server as the app's handlers should see it: `requestIP()` answers the listener's
   * peer for a forwarded request and the socket's peer for every other.
   */
  serverFor(server: Server<undefined>): Server<undefined>;
  /** Finishes the forwarded requests in flight and closes the receiver. */
  stop(): Promise<void>;
}

type Fetch = (request: Request) => Response | Promise<Response>;

export function startForwardReceiver(app: { fetch: Fetch }): ForwardReceiver {
  const token = randomToken(32);
  const peers = new WeakMap<Request, string>();
  const receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    ...SERVE_OPTIONS,
    fetch(request) {
      const given = request.headers.get(FORWARD_TOKEN_HEADER);
      if (given === null || !constantTimeEqual(given, token)) return jsonResponse(403, { error: 'forbidden' });
      const headers = new Headers(request.headers);
      const peer = headers.get(FORWARD_PEER_HEADER) ?? '';
      headers.delete(FORWARD_TOKEN_HEADER);
      headers.delete(FORWARD_PEER_HEADER);
      const forwarded = new Request(request.url, { method: request.method, headers, body: request.body, signal: request.signal });
      peers.set(forwarded, peer);
      return app.fetch(forwarded);
    },
  });
  return {
    target: { url: `http://127.0.0.1:${receiver.port}`, token },
    serverFor(server) {
      const requestIP = (request: Request) => {
        const peer = peers.get(request);
        if (peer === undefined) return server.requestIP(request);
        return peer === '' ? null : { address: peer, family: peer.includes(':') ? ('IPv6' as const) : ('IPv4' as const), port: 0 };
      };
      return new Proxy(server, {
        get(target, property) {
          if (property === 'requestIP') return requestIP;
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
    stop: () => receiver.stop(false),
  };
}

/**
 * The listener's side: every request its own routes do not take goes on unchanged, and its answer
 * comes back unchanged. No body is held whole: one declared over the main thread's limit is refused
 * unread, and any other streams through a counter that answers the same 413 once past it.
 */
export function forwardTo(target: ForwardTarget) {
  return async (request: Request, server: Server<undefined>): Promise<Response> => {
    const url = request.url;
    const path = url.slice(url.indexOf('/', url.indexOf('//') + 2));
    if (declaresTooLarge(request)) return httpErrorResponse(payloadTooLarge(), pathOf(url));
    const headers = new Headers(request.headers);
    headers.set(FORWARD_TOKEN_HEADER, target.token);
    headers.set(FORWARD_PEER_HEADER, server.requestIP(request)?.address ?? '');
    // A declared length goes on in the copied headers (fetch sends a stream of that length as
    // such), so the app sees the same Content-Length; a chunked body stays chunked.
    const body = request.method === 'GET' || request.method === 'HEAD' || request.body === null ? undefined : capStream(request.body, MAX_BODY_BYTES);
    try {
      // The client's going away aborts the forwarded request, and with it the app's reading.
      return await fetch(target.url + path, { method: request.method, headers, body, redirect: 'manual', decompress: false, signal: request.signal });
    } catch (error) {
      if (error instanceof HttpError) return httpErrorResponse(error, pathOf(url));
      // A client that hung up mid-body is no failure of the main thread (and hears no answer).
      if (!request.signal.aborted) console.error('tracking listener: forwarding to the main thread failed', error);
      return jsonResponse(503, { error: 'service unavailable' });
    }
  };
}
