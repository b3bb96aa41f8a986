import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import fc from 'fast-check';
import { ulid } from 'ulid';
import { createServing } from '../../src/app';
import { loadConfig } from '../../src/config/config';
import { clientIp, normaliseIp, rateLimitKey } from '../../src/http/client-ip';
import { memoryRateLimiter, rateLimitGroup, redisRateLimiter } from '../../src/http/rate-limit';
import { createServices } from '../../src/services';
import { body, testApp, TEST_BASE_URL } from '../support/app';
import { backends } from '../support/db';
import { expectSecurityHeaders } from '../support/http';
import { awayFromWindowEnd } from '../support/rate-window';
import { tempDir } from '../support/temp-dir';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine (the import above
// covers the shared cleanup hooks; this covers the tests of this file).
setDefaultTimeout(120_000);


const hops = (trustProxy: number) => ({ trustProxy, trustedProxies: undefined });
const withForwarded = (forwarded?: string) => new Request('http://api.test.local/x', { headers: forwarded ? { 'x-forwarded-for': forwarded } : {} });

describe('client IP', () => {
  test('without trusted proxies the socket peer is the client and X-Forwarded-For is ignored', () => {
    expect(clientIp(withForwarded('9.9.9.9'), '203.0.113.7', hops(0))).toBe('203.0.113.7');
    expect(clientIp(withForwarded('9.9.9.9'), undefined, hops(0))).toBe('0.0.0.0');
  });

  test('with N trusted hops the client is the N-th entry from the right (left entries are forgeable)', () => {
    expect(clientIp(withForwarded('198.51.100.1'), '10.0.0.2', hops(1))).toBe('198.51.100.1');
    expect(clientIp(withForwarded('6.6.6.6, 198.51.100.1'), '10.0.0.2', hops(1))).toBe('198.51.100.1');
    expect(clientIp(withForwarded('6.6.6.6, 198.51.100.1, 10.0.0.9'), '10.0.0.2', hops(2))).toBe('198.51.100.1');
    // A chain shorter than configured: the left-most entry is all there is.
    expect(clientIp(withForwarded('198.51.100.1'), '10.0.0.2', hops(3))).toBe('198.51.100.1');
  });

  test('a missing or malformed forwarded entry falls back to the socket', () => {
    expect(clientIp(withForwarded(), '10.0.0.2', hops(1))).toBe('10.0.0.2');
    expect(clientIp(withForwarded('not-an-ip'), '10.0.0.2', hops(1))).toBe('10.0.0.2');
    expect(clientIp(withForwarded(' , '), '10.0.0.2', hops(1))).toBe('10.0.0.2');
  });

  test('addresses are normalised: IPv4-mapped IPv6 is IPv4, IPv6 in short form', () => {
    expect(normaliseIp('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseIp('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(clientIp(withForwarded('::ffff:192.0.2.1'), undefined, hops(1))).toBe('192.0.2.1');
  });
});

describe('rate-limit identity', () => {
  const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
  const ipv6 = fc.array(hextet, { minLength: 8, maxLength: 8 });

  test('IPv6 addresses sharing their first 64 bits share one identity (property)', () => {
    fc.assert(
      fc.property(ipv6, ipv6, (a, b) => {
        const sameNetwork = [...a.slice(0, 4), ...b.slice(4)];
        return rateLimitKey(a.join(':')) === rateLimitKey(sameNetwork.join(':'));
      }),
    );
  });

  test('IPv6 addresses in different /64s never share one (property)', () => {
    fc.assert(
      fc.property(ipv6, ipv6, (a, b) => {
        fc.pre(a.slice(0, 4).map((h) => parseInt(h, 16)).join() !== b.slice(0, 4).map((h) => parseInt(h, 16)).join());
        return rateLimitKey(a.join(':')) !== rateLimitKey(b.join(':'));
      }),
    );
  });

  test('IPv4 addresses are their own identity; mapped forms match', () => {
    fc.assert(fc.property(fc.ipV4(), (ip) => rateLimitKey(ip) === ip && rateLimitKey(`::ffff:${ip}`) === ip));
    expect(rateLimitKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
  });
});

describe('limits per path group (spec Limits table)', () => {
  test('each listed path has its per-minute limit; redirects and others have none', () => {
    const table: [string, number | undefined][] = [
      ['/api/sdk/v1/install', 600],
      ['/api/protect/beacon', 600],
      ['/api/v1/conversions', 300],
      ['/postback', 300],
      ['/api/mcp', 240],
      ['/api/skan/postback', 120],
      ['/login', 20],
      ['/register', 20],
      ['/c/abc', undefined],
      ['/l/abc', undefined],
      ['/i/abc', undefined],
      ['/api/health', undefined],
    ];
    for (const [path, limit] of table) expect(rateLimitGroup(path)?.perMinute).toBe(limit);
    expect(rateLimitGroup('/login')?.group).toBe(rateLimitGroup('/register')?.group);
  });

  test('the memory limiter allows `limit` hits per key per minute, then tells when the window ends', async () => {
    const limiter = memoryRateLimiter();
    const start = Date.UTC(2026, 0, 1, 12, 0, 0);
    for (let i = 0; i < 3; i++) expect((await limiter.hit('k', 3, start + i)).allowed).toBe(true);
    expect(await limiter.hit('k', 3, start + 15_000)).toEqual({ allowed: false, retryAfter: 45 });
    expect((await limiter.hit('other', 3, start + 15_000)).allowed).toBe(true);
    expect((await limiter.hit('k', 3, start + 60_000)).allowed).toBe(true);
  });

  test('an unreachable Redis degrades to per-node counting instead of failing requests', async () => {
    const logged: string[] = [];
    const limiter = redisRateLimiter('redis://127.0.0.1:1', { namespace: `svc:test:${ulid()}`, log: (line) => logged.push(line) });
    try {
      const decisions = [];
      // One fixed instant: the four hits fall in one window whatever the clock says.
      const now = Date.UTC(2026, 0, 1, 12, 0, 30);
      for (let i = 0; i < 4; i++) decisions.push((await limiter.hit('k', 3, now)).allowed);
      expect(decisions).toEqual([true, true, true, false]);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain('Redis unavailable');
    } finally {
      await limiter.close();
    }
  });
});

/** A call in the 20-per-minute auth group that is cheap to answer: an empty sign-up form (400). */
const login = (t: { request: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response> }, headers: Record<string, string> = {}) =>
  t.request('/register', { method: 'POST', headers, json: {} });

describe('rate limits through the app', async () => {
  const [pglite] = backends();
  const db = await pglite!.create();

  test('behind a trusted proxy: 20 sign-in calls a minute per client, then 429 with Retry-After in the spec shape', async () => {
    await awayFromWindowEnd();
    const t = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const client = { 'x-forwarded-for': '198.51.100.20' };
    for (let i = 0; i < 20; i++) expect((await login(t, client)).status).toBe(400);
    const limited = await login(t, client);
    expect(limited.status).toBe(429);
    expectSecurityHeaders(limited);
    const json = await body(limited);
    expect(Object.keys(json).sort()).toEqual(['error', 'retry_after']);
    expect(json.error).toBe('rate_limited');
    expect(Number.isInteger(json.retry_after)).toBe(true);
    expect(json.retry_after).toBeGreaterThanOrEqual(1);
    expect(json.retry_after).toBeLessThanOrEqual(60);
    expect(limited.headers.get('retry-after')).toBe(String(json.retry_after));
    // /register shares the group; another client, and other groups, are unaffected.
    expect((await t.request('/login', { method: 'POST', headers: client, json: { email: 'a@example.com', password: 'x' } })).status).toBe(429);
    expect((await login(t, { 'x-forwarded-for': '198.51.100.21' })).status).toBe(400);
    expect((await t.request('/api/v1/clicks', { headers: client })).status).toBe(401);
    expect((await t.request('/api/health', { headers: client })).status).toBe(200);
  });

  test('IPv6 clients are counted per /64', async () => {
    await awayFromWindowEnd();
    const t = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: 'on' }, { mirror: false, workers: false });
    for (let i = 0; i < 20; i++) expect((await login(t, { 'x-forwarded-for': `2001:db8:aa:1::${(i + 1).toString(16)}` })).status).toBe(400);
    expect((await login(t, { 'x-forwarded-for': '2001:db8:aa:1:ffff:ffff:ffff:ffff' })).status).toBe(429);
    expect((await login(t, { 'x-forwarded-for': '2001:db8:aa:2::1' })).status).toBe(400);
  });

  test('security: without TRUST_PROXY a forged X-Forwarded-For does not change the identity', async () => {
    await awayFromWindowEnd();
    const t = await testApp(db, { RATE_LIMIT: 'on' }, { mirror: false, workers: false });
    for (let i = 0; i < 20; i++) expect((await login(t, { 'x-forwarded-for': `203.0.113.${i}` })).status).toBe(400);
    expect((await login(t, { 'x-forwarded-for': '203.0.113.250' })).status).toBe(429);
  });

  test('security: behind one proxy, entries the client prepends are not trusted', async () => {
    await awayFromWindowEnd();
    const t = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: '1' }, { mirror: false, workers: false });
    for (let i = 0; i < 20; i++) expect((await login(t, { 'x-forwarded-for': `203.0.113.${i}, 192.0.2.44` })).status).toBe(400);
    expect((await login(t, { 'x-forwarded-for': '203.0.113.99, 192.0.2.44' })).status).toBe(429);
  });

  test('RATE_LIMIT=off switches limits off', async () => {
    const t = await testApp(db, { RATE_LIMIT: 'off' }, { mirror: false, workers: false });
    for (let i = 0; i < 25; i++) expect((await login(t)).status).toBe(400);
  });

  if (process.env.REDIS_URL) {
    test('with Redis, two instances share one budget; another namespace is separate', async () => {
      const namespace = `svc:test:${ulid()}`;
      const instance = async (ns: string) => {
        const config = loadConfig({
          DATA_DIR: tempDir('rl'),
          BASE_URL: TEST_BASE_URL,
          SESSION_SECRET: 'rate-limit-test-session-secret-0123456789',
          RATE_LIMIT: 'on',
          TRUST_PROXY: '1',
          REDIS_URL: process.env.REDIS_URL,
        });
        const services = await createServices(config, db);
        await services.rateLimiter.close();
        services.rateLimiter = redisRateLimiter(config.redisUrl!, { namespace: ns });
        const serving = createServing(services);
        return {
          request: async (path: string, init: RequestInit & { json?: unknown } = {}) =>
            serving.fetch(new Request(`${TEST_BASE_URL}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) }, body: JSON.stringify(init.json) })),
          // services.stop() closes the limiter it was built with; the Redis one put in its place is closed here.
          stop: async () => {
            await services.stop();
            await services.rateLimiter.close();
          },
        };
      };
      const [first, second, elsewhere] = [await instance(namespace), await instance(namespace), await instance(`${namespace}:other`)];
      await awayFromWindowEnd();
      try {
        const client = { 'x-forwarded-for': '198.51.100.77' };
        for (let i = 0; i < 20; i++) expect((await login(i % 2 ? first : second, client)).status).toBe(400);
        expect((await login(first, client)).status).toBe(429);
        expect((await login(second, client)).status).toBe(429);
        expect((await login(elsewhere, client)).status).toBe(400);
      } finally {
        for (const node of [first, second, elsewhere]) await node.stop();
      }
    }, 60_000);
  }
});
