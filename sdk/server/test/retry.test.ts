import { afterAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { sdk } from './sdk';

const { backoffMs, createServerClient, retryAfterMs, ServerApiError } = sdk;

interface Seen {
  method: string;
  path: string;
  body: string;
}

/** A local service that answers each request with the next of `answers`, and records what it got. */
function fakeService() {
  let answers: (() => Response)[] = [];
  const seen: Seen[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      seen.push({ method: request.method, path: new URL(request.url).pathname, body: await request.text() });
      const next = answers.shift();
      return next ? next() : Response.json({ error: 'no answer left' }, { status: 599 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    seen,
    answer(...next: (() => Response)[]) {
      answers = next;
      seen.length = 0;
    },
    stop: () => server.stop(true),
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => () => Response.json(body, { status, headers });
const RATE_LIMITED = json(429, { error: 'rate_limited', retry_after: 2 }, { 'retry-after': '2' });
const UNAVAILABLE = json(503, { error: 'service unavailable' });
const COSTS_OK = json(200, { ok: true, upserted: 1 });

describe('the retry rule against a local service', () => {
  const service = fakeService();
  afterAll(() => service.stop());
  const waits: number[] = [];
  const client = createServerClient({
    baseUrl: service.url,
    apiKey: 'svc_live_0123456789abcdef0123456789abcdef',
    retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
  });
  const fresh = () => (waits.length = 0);

  test('a 429 waits its Retry-After, then the same call is sent again and answered', async () => {
    fresh();
    service.answer(RATE_LIMITED, json(201, { ok: true, id: 'c1', matched: false }));
    // No order_id: not idempotent, yet a 429 was refused before anything ran.
    const result = await client.conversions.create({ gclid: 'g-1', value: 3 });
    expect(result).toEqual({ ok: true, id: 'c1', matched: false });
    expect(waits).toEqual([2000]);
    expect(service.seen).toHaveLength(2);
    expect(service.seen[1]).toEqual(service.seen[0]!);
    expect(JSON.parse(service.seen[0]!.body)).toEqual({ gclid: 'g-1', value: 3 });
  });

  test('a Retry-After given as an HTTP date is waited out until that date', () => {
    const now = Date.parse('2026-09-02T10:00:00Z');
    expect(retryAfterMs('Wed, 02 Sep 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 02 Sep 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });

  test('a 503 on a call safe to repeat is retried after the backoff, the body unchanged', async () => {
    fresh();
    service.answer(UNAVAILABLE, COSTS_OK);
    const rows = [{ campaign_id: 'cmp-1', day: '2026-09-01', spend: 12.5 }];
    expect(await client.costs.import(rows)).toEqual({ ok: true, upserted: 1 });
    expect(waits).toEqual([1000]);
    expect(service.seen.map((s) => s.body)).toEqual([JSON.stringify({ rows }), JSON.stringify({ rows })]);
  });

  test('a conversion with an order_id (its idempotency key) is resent after a 503 with the same key', async () => {
    fresh();
    service.answer(UNAVAILABLE, UNAVAILABLE, json(201, { ok: true, id: 'c2', matched: true }));
    await client.conversions.create({ click_id: 'click-0001', order_id: 'order-9', value: 10, currency: 'EUR' });
    expect(waits).toEqual([1000, 2000]);
    expect(service.seen.map((s) => JSON.parse(s.body).order_id)).toEqual(['order-9', 'order-9', 'order-9']);
  });

  test('5xx is retried at most 3 times, then the last answer is the error', async () => {
    fresh();
    service.answer(UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, json(500, { error: 'internal' }), COSTS_OK);
    const failure = await client.clicks.list({ limit: 5 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServerApiError);
    expect(failure).toMatchObject({ status: 500, body: { error: 'internal' }, method: 'GET', path: '/api/v1/clicks' });
    expect(service.seen).toHaveLength(4);
    expect(waits).toEqual([1000, 2000, 4000]);
  });

  test('a 400 is never retried', async () => {
    fresh();
    const invalid = { error: { formErrors: [], fieldErrors: { limit: ['must be an integer from 1 to 1000'] } } };
    service.answer(json(400, invalid), COSTS_OK);
    const failure = await client.clicks.list({ limit: 0 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 400, body: invalid });
    expect(service.seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  test('other 4xx are not retried either: 401, 404, 409', async () => {
    for (const status of [401, 404, 409]) {
      fresh();
      service.answer(json(status, { error: 'no' }), COSTS_OK);
      await expect(client.links.get('01J0000000000000000000000')).rejects.toMatchObject({ status });
      expect(service.seen).toHaveLength(1);
    }
  });

  test('a call that is not idempotent (impressions) is not sent again after a 503', async () => {
    fresh();
    service.answer(UNAVAILABLE, json(200, { accepted: 1 }));
    await expect(client.impressions.import([{ ip: '203.0.113.9', campaign_id: 'cmp-1' }])).rejects.toMatchObject({ status: 503 });
    expect(service.seen).toHaveLength(1);
  });

  test('a Retry-After beyond maxRetryAfterMs is not waited out: the 429 is the answer', async () => {
    fresh();
    const impatient = createServerClient({ baseUrl: service.url, apiKey: 'k', retry: { maxRetryAfterMs: 1000, sleep: async (ms) => void waits.push(ms) } });
    service.answer(RATE_LIMITED, COSTS_OK);
    await expect(impatient.links.list()).rejects.toMatchObject({ status: 429, body: { error: 'rate_limited', retry_after: 2 } });
    expect(waits).toEqual([]);
  });

  test('a lost connection is retried for a read, and not for a create', async () => {
    const closed = fakeService();
    closed.stop();
    fresh();
    const unreachable = createServerClient({ baseUrl: closed.url, apiKey: 'k', retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5 } });
    await expect(unreachable.links.list()).rejects.toBeInstanceOf(Error);
    expect(waits).toEqual([1000, 2000, 4000]);
    fresh();
    await expect(unreachable.links.create({ destination: 'https://shop.example.com/' })).rejects.toBeInstanceOf(Error);
    expect(waits).toEqual([]);
  });
});

describe('backoffMs', () => {
  test('is the smaller of the cap and 2^(attempt-1) s, within 20 % either way', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1000, max: 60_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, cap, r) => {
        const base = Math.min(cap, 1000 * 2 ** (attempt - 1));
        const wait = backoffMs(attempt, cap, () => r);
        expect(wait).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
        expect(wait).toBeLessThanOrEqual(Math.ceil(base * 1.2));
      }),
    );
    expect([backoffMs(1, 8000, () => 0), backoffMs(3, 8000, () => 0.5), backoffMs(9, 8000, () => 0.999999)]).toEqual([800, 4000, 9600]);
  });
});
