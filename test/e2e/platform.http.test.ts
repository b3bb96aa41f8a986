import '../support/slow-suite';
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { MAX_BODY_BYTES } from '../../src/http/http.plugin';
import { expectSecurityHeaders } from '../support/http';
import { awayFromWindowEnd } from '../support/rate-window';
import { startServer } from '../support/server';

// Real server processes: each boot opens a store and a DuckDB mirror.
setDefaultTimeout(180_000);
/** A generous boot deadline: the machine running tests may be busy with other suites. */
const BOOT_MS = 120_000;

/** An empty sign-up form: in the 20-per-minute auth group, and cheap to refuse (400). */
const signUp = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

describe('HTTP rules on a real socket', async () => {
  const server = await startServer({ RATE_LIMIT: 'on' }, { timeoutMs: BOOT_MS });
  const proxied = await startServer({ RATE_LIMIT: 'on', TRUST_PROXY: '1' }, { timeoutMs: BOOT_MS });
  afterAll(async () => {
    await Promise.all([server.stop(), proxied.stop()]);
  });

  test('the socket address is the identity: a forged X-Forwarded-For changes nothing without TRUST_PROXY', async () => {
    await awayFromWindowEnd();
    for (let i = 0; i < 20; i++) expect((await signUp(server.url, { 'x-forwarded-for': `203.0.113.${i}` })).status).toBe(400);
    const limited = await signUp(server.url, { 'x-forwarded-for': '198.51.100.200' });
    expect(limited.status).toBe(429);
    expectSecurityHeaders(limited);
    const json = (await limited.json()) as { error: string; retry_after: number };
    expect(json.error).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBe(String(json.retry_after));
    // Other path groups keep their own budget.
    expect((await fetch(`${server.url}/api/v1/clicks`)).status).toBe(401);
  });

  test('with TRUST_PROXY the forwarded address is the identity', async () => {
    await awayFromWindowEnd();
    for (let i = 0; i < 20; i++) expect((await signUp(proxied.url, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(400);
    expect((await signUp(proxied.url, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(429);
    expect((await signUp(proxied.url, { 'x-forwarded-for': '198.51.100.2' })).status).toBe(400);
  });

  test('a declared body above 5 MiB answers 413 in the spec shape, with the security headers', async () => {
    for (const size of [MAX_BODY_BYTES + 1, 3 * MAX_BODY_BYTES]) {
      const res = await fetch(`${server.url}/api/v1/costs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(size).fill(32) });
      expect(res.status).toBe(413);
      expectSecurityHeaders(res);
      expect(await res.json()).toEqual({ error: 'payload too large' });
    }
  });

  test('a chunked body is cut off at 5 MiB; a small chunked body is served', async () => {
    const chunked = (bytes: number, text: string) =>
      fetch(`${server.url}/api/dashboard/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: (async function* () {
          yield new TextEncoder().encode(text);
          const filler = new Uint8Array(256 * 1024).fill(32);
          for (let sent = 0; sent < bytes; sent += filler.length) yield filler;
        })(),
      } as RequestInit);
    const big = await chunked(MAX_BODY_BYTES + 512 * 1024, '{"name":"x"}');
    expect(big.status).toBe(413);
    expectSecurityHeaders(big);
    expect(await big.json()).toEqual({ error: 'payload too large' });
    // Read in full, then refused for want of a session.
    const small = await chunked(0, '{"name":"x"}');
    expect(small.status).toBe(401);
  });

  test('unknown paths answer 404 JSON and unlisted methods 405, with the security headers', async () => {
    const missing = await fetch(`${server.url}/definitely/not/here`);
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing);
    expect(await missing.json()).toEqual({ error: 'not found' });
    const wrongMethod = await fetch(`${server.url}/api/health`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expectSecurityHeaders(wrongMethod);
  });

  test('CORS: the SDK preflight is open to any origin; the REST API sends no CORS headers', async () => {
    const preflight = await fetch(`${server.url}/api/sdk/v1/install`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-sdk-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expectSecurityHeaders(preflight);
    const rest = await fetch(`${server.url}/api/v1/clicks`, { headers: { origin: 'https://app.example.com' } });
    expect(rest.headers.get('access-control-allow-origin')).toBeNull();
  });
});
