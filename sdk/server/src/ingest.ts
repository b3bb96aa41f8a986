/**
 * Edge batch click ingest (POST /api/ingest/clicks): the `X-SVC-Signature` the service checks,
 * lowercase hex HMAC-SHA256 of the raw body keyed by the edge's INGEST_SECRET, made with Web
 * Crypto so it runs in Node, Bun, Deno and edge workers alike; and a sender that signs the exact
 * bytes it sends. No dependency: an edge worker imports `svc-server-sdk/ingest` alone.
 */
import type { paths } from './generated/openapi.js';
import { parseBody } from './errors.js';
import { sendWithRetries, type RetryOptions } from './retry.js';

type IngestOperation = paths['/api/ingest/clicks']['post'];
export type IngestBody = IngestOperation['requestBody']['content']['application/json'];
export type IngestAnswer = IngestOperation['responses'][200]['content']['application/json'];

/** A click row as docs/edge.md lists it; rows take further keys, which the service ignores. */
export interface IngestClickRow {
  slug: string;
  domain?: string | null;
  click_id?: string | null;
  ts?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  referer?: string | null;
  url?: string | null;
  [key: string]: unknown;
}

export const SIGNATURE_HEADER = 'X-SVC-Signature';
const encoder = new TextEncoder();

/** The signature of `rawBody` (the bytes sent, or the string whose UTF-8 bytes are sent). */
export async function signIngestBody(secret: string, rawBody: string | Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const bytes = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, bytes as Uint8Array<ArrayBuffer>));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export interface SendClicksOptions {
  /** `{base_url}` of the service. */
  baseUrl: string;
  /** The service's INGEST_SECRET. */
  secret: string;
  events: IngestClickRow[];
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryOptions;
  signal?: AbortSignal;
}

export class IngestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`POST /api/ingest/clicks answered ${status}: ${JSON.stringify(body)}`);
    this.name = 'IngestError';
  }
}

/**
 * Sends one signed batch (1 to 1000 rows) and answers `{accepted, rejected}`. A repeated
 * `click_id` is stored once, so a batch whose every row names its click id is resent after a 5xx
 * or a lost connection; any other batch only after a 429.
 */
export async function sendClickBatch(options: SendClicksOptions): Promise<IngestAnswer> {
  const raw = JSON.stringify({ events: options.events } satisfies IngestBody);
  const request = new Request(new URL('/api/ingest/clicks', options.baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: await signIngestBody(options.secret, raw) },
    body: raw,
    signal: options.signal,
  });
  const everyRowNamed = options.events.every((row) => typeof row.click_id === 'string');
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const response = await sendWithRetries(send, request, everyRowNamed ? 'safe' : 'refused-only', options.retry);
  const body = parseBody(await response.text());
  if (response.status !== 200) throw new IngestError(response.status, body);
  return body as IngestAnswer;
}
