import { createHmac } from 'node:crypto';
import type { TestApp } from '../support/app';

export const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** What an edge worker sends: lowercase hex HMAC-SHA256 of the raw body. */
export const sign = (secret: string, raw: string | Uint8Array) => createHmac('sha256', secret).update(raw).digest('hex');

/**
 * Posts to /api/ingest/clicks: `events` as `{events}` (or `raw`, a body as is), signed with the
 * app's INGEST_SECRET unless `signature` says otherwise (null: no header).
 */
export function ingest(t: TestApp, events: unknown[] | undefined, options: { raw?: string; signature?: string | null } = {}): Promise<Response> {
  const raw = options.raw ?? JSON.stringify({ events });
  const signature = options.signature === undefined ? sign(t.config.ingestSecret ?? '', raw) : options.signature;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['x-svc-signature'] = signature;
  return t.request('/api/ingest/clicks', { method: 'POST', headers, body: raw });
}
