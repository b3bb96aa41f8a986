/**
 * Silent pushes over APNs: HTTP/2 over TLS (node:http2; fetch does not speak HTTP/2 to a server),
 * one connection reused for every push, token auth with an ES256 JWT (docs/uninstalls.md, "APNs").
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { rootCertificates } from 'node:tls';
import { importPKCS8, SignJWT } from 'jose';
import type { PushClient, PushOutcome, PushTarget } from './push.model';

export interface ApnsClientOptions {
  /** PKCS #8 PEM of the `.p8` key. */
  keyPem: string;
  keyId: string;
  teamId: string;
  /** The APNs origin, https://api.push.apple.com in production. */
  url: string;
  /** PEM certificates trusted besides the system's (APNS_CA_PATH). */
  ca?: string;
  timeoutMs: number;
  /** Date.now by default; tests move it to see the JWT renewed. */
  now?: () => number;
}

/** Apple refuses a JWT older than an hour and throttles one renewed more often than every 20 minutes. */
export const APNS_JWT_LIFETIME_MS = 50 * 60_000;
/** Device tokens are hex; anything else would be spliced into the request path. */
const DEVICE_TOKEN = /^[0-9A-Fa-f]{16,200}$/;
const SILENT_PAYLOAD = JSON.stringify({ aps: { 'content-available': 1 } });
/** An answer's body is a short JSON reason; more is not read. */
const MAX_BODY_BYTES = 4096;

export function createApnsClient(options: ApnsClientOptions): PushClient {
  const now = options.now ?? Date.now;
  const key = importPKCS8(options.keyPem, 'ES256');
  let jwt: { value: Promise<string>; issuedAt: number } | undefined;
  let session: ClientHttp2Session | undefined;

  /** One JWT for every push for 50 minutes; concurrent sends share the one being signed. */
  function providerToken(): Promise<string> {
    if (!jwt || now() - jwt.issuedAt >= APNS_JWT_LIFETIME_MS) {
      const issuedAt = now();
      const value = key.then((signingKey) =>
        new SignJWT({ iss: options.teamId, iat: Math.floor(issuedAt / 1000) }).setProtectedHeader({ alg: 'ES256', kid: options.keyId }).sign(signingKey),
      );
      value.catch(() => {
        if (jwt?.value === value) jwt = undefined;
      });
      jwt = { value, issuedAt };
    }
    return jwt.value;
  }

  function connection(): ClientHttp2Session {
    if (session && !session.closed && !session.destroyed) return session;
    const opened = connect(options.url, { ca: options.ca ? [...rootCertificates, options.ca] : undefined });
    // A failed connection fails its streams; the next send opens a new one.
    opened.on('error', () => {});
    opened.on('goaway', () => opened.close());
    opened.on('close', () => {
      if (session === opened) session = undefined;
    });
    session = opened;
    return opened;
  }

  function send(target: PushTarget, signal: AbortSignal): Promise<PushOutcome> {
    if (!DEVICE_TOKEN.test(target.token)) return Promise.resolve({ kind: 'token_rejected', reason: 'not an APNs device token' });
    if (!target.bundleId) return Promise.resolve({ kind: 'token_rejected', reason: 'the app has no bundle id' });
    const topic = target.bundleId;
    return providerToken().then(
      (authorization) => exchange(target.token, topic, authorization, signal),
      () => ({ kind: 'refused', reason: 'the key could not sign a provider token' }) as PushOutcome,
    );
  }

  function exchange(token: string, topic: string, authorization: string, signal: AbortSignal): Promise<PushOutcome> {
    return new Promise((resolve) => {
      let stream: ClientHttp2Stream | undefined;
      const finish = (outcome: PushOutcome) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      /** Gives up on an answer: the stream is reset, so a late one is never read. */
      const abandon = (reason: string) => {
        if (stream && !stream.closed) stream.close(constants.NGHTTP2_CANCEL);
        finish({ kind: 'unavailable', reason });
      };
      const onAbort = () => abandon('stopped');
      const timer = setTimeout(() => abandon('timeout'), options.timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) return onAbort();
      try {
        stream = connection().request({
          ':method': 'POST',
          ':path': `/3/device/${token}`,
          authorization: `bearer ${authorization}`,
          'apns-push-type': 'background',
          'apns-priority': '5',
          'apns-topic': topic,
          'content-type': 'application/json',
        });
      } catch (error) {
        return finish({ kind: 'unavailable', reason: (error as Error).message });
      }
      let status = 0;
      let body = '';
      stream.on('response', (headers) => (status = Number(headers[':status'])));
      stream.on('data', (chunk: Buffer) => {
        if (body.length < MAX_BODY_BYTES) body += chunk.toString('utf8');
      });
      stream.on('end', () => finish(outcomeOf(status, body)));
      stream.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'unavailable', reason: error.code ?? error.message }));
      stream.on('close', () => finish({ kind: 'unavailable', reason: 'the stream closed without an answer' }));
      stream.end(SILENT_PAYLOAD);
    });
  }

  /** Apple's answers (docs/uninstalls.md, "What marks an install"); a refused JWT is signed again next time. */
  function outcomeOf(status: number, body: string): PushOutcome {
    const reason = reasonOf(body) ?? `HTTP ${status}`;
    if (status === 200) return { kind: 'delivered' };
    if (status === 410) return reason === 'Unregistered' ? { kind: 'unregistered' } : { kind: 'token_rejected', reason };
    if (status === 400 || status === 413) return { kind: 'token_rejected', reason };
    if (status === 403 || status === 404 || status === 405) {
      if (status === 403) jwt = undefined;
      return { kind: 'refused', reason };
    }
    return { kind: 'unavailable', reason };
  }

  return {
    provider: 'apns',
    send,
    /** Closes the connection (after each round); the next send opens another. */
    async close() {
      const open = session;
      session = undefined;
      if (!open || open.closed || open.destroyed) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => open.destroy(), 2000);
        open.close(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

function reasonOf(body: string): string | null {
  try {
    const reason = (JSON.parse(body) as { reason?: unknown }).reason;
    return typeof reason === 'string' ? reason : null;
  } catch {
    return null;
  }
}
