import { isRetryable, retryAfterMs } from './backoff';
import type { Clock } from './clock';

/** What one request came to: an answer to use, one worth retrying, or one never to retry. */
export type Outcome =
  | { kind: 'ok'; status: number; body: unknown }
  | { kind: 'retry'; status: number; retryAfterMs?: number }
  | { kind: 'reject'; status: number; body: unknown };

/** The part of a fetch request the SDK sets: a browser's, React Native's or a test's fetch takes it. */
export interface RequestLike {
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  credentials?: 'omit';
  keepalive?: boolean;
}

/** The part of a fetch response the SDK reads. */
export interface ResponseLike {
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}

export type FetchLike = (url: string, init: RequestLike) => Promise<ResponseLike>;

/** Browsers refuse keepalive bodies past 64 KiB (shared by a page's requests in flight). */
export const KEEPALIVE_BYTES = 32 * 1024;

/**
 * The size of `text` in UTF-8, the unit of the keepalive limit. Counted by hand: React Native
 * before 0.74 has no TextEncoder. A lone surrogate counts 3, as TextEncoder writes it U+FFFD.
 */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * POSTs JSON to `{baseUrl}/api/sdk/v1/{path}` with the SDK key. Small bodies go with
 * `keepalive`, so a request under way when a page goes away still reaches the server.
 */
export function createTransport(options: { baseUrl: string; sdkKey: string; fetch: FetchLike; clock: Clock }) {
  const root = options.baseUrl.replace(/\/+$/, '');
  return async function post(path: string, payload: unknown): Promise<Outcome> {
    const body = JSON.stringify(payload);
    let response: ResponseLike;
    try {
      response = await options.fetch(`${root}/api/sdk/v1/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-SDK-Key': options.sdkKey },
        body,
        credentials: 'omit',
        keepalive: utf8Bytes(body) <= KEEPALIVE_BYTES,
      });
    } catch {
      return { kind: 'retry', status: 0 };
    }
    let answer: unknown = null;
    try {
      answer = await response.json();
    } catch {}
    if (response.ok) return { kind: 'ok', status: response.status, body: answer };
    if (!isRetryable(response.status)) return { kind: 'reject', status: response.status, body: answer };
    const wait = response.status === 429 ? retryAfterMs(response.headers.get('Retry-After'), answer, options.clock.now()) : undefined;
    return wait === undefined ? { kind: 'retry', status: response.status } : { kind: 'retry', status: response.status, retryAfterMs: wait };
  };
}

export type Post = ReturnType<typeof createTransport>;
