import '../support/slow-suite';
import { describe, expect, spyOn, test } from 'bun:test';
import { hmacSha256Hex } from '../../src/shared/crypto/secrets';
import { createPostbackWorker, type PostbackWorker, type PostbackWorkerOptions } from '../../src/postbacks/postbacks.worker';
import { body, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, orgWithKey } from '../support/fixtures';
import { eventually } from '../support/wait';
import { receiver } from './receiver';

const FAST: PostbackWorkerOptions = {
  allowPrivate: true,
  userAgent: 'svc-postback/test',
  pollMs: 20,
  batchSize: 20,
  timeoutMs: 5000,
  leaseMs: 10_000,
  maxAttempts: 5,
  baseDelayMs: 30,
  maxDelayMs: 200,
  stopGraceMs: 50,
  hostRatePerSecond: 10,
  hostBurst: 20,
};

for (const backend of backends()) {
  describe(`outbound postbacks on ${backend.name}`, async () => {
    const db = await backend.create();
    // Each test drives its own worker, with short delays, instead of the app's.
    const t = await testApp(db, { POSTBACK_ALLOW_PRIVATE: '1' }, { mirror: false, workers: false });

    const destination = async (auth: Record<string, string>, json: Record<string, unknown>) => {
      const res = await t.request('/api/v1/postback-destinations', { method: 'POST', headers: auth, json });
      expect(res.status).toBe(201);
      return body(res);
    };
    const convert = async (auth: Record<string, string>, json: Record<string, unknown>) => {
      const res = await t.request('/api/v1/conversions', { method: 'POST', headers: auth, json });
      expect(res.status).toBe(201);
      return body(res);
    };
    /** Runs `work` and returns its result with what it wrote to the server log (console.warn). */
    const logged = async <T>(work: () => Promise<T>): Promise<[T, string]> => {
      const warn = spyOn(console, 'warn').mockImplementation(() => {});
      try {
        const result = await work();
        return [result, warn.mock.calls.map((call) => call.join(' ')).join('\n')];
      } finally {
        warn.mockRestore();
      }
    };
    const deliveries = async (auth: Record<string, string>, query = '') => (await body(await t.request(`/api/v1/postback-deliveries${query}`, { headers: auth }))).data;
    /** Runs the worker until the organization has no pending delivery; returns the log. */
    const drain = async (worker: PostbackWorker, auth: Record<string, string>) =>
      eventually(async () => {
        await worker.runOnce();
        const log = await deliveries(auth);
        return log.length > 0 && log.every((d: { status: string }) => d.status !== 'pending') ? log : undefined;
      });

    test('a destination that fails twice and then succeeds gets the postback, signed, on the third attempt', async () => {
      const org = await orgWithKey(db);
      const server = receiver((n) => (n === 0 ? 500 : n === 1 ? 503 : 200));
      const secret = 'destination-secret-0123';
      const dest = await destination(org.auth, { url: `${server.url}/pb?cid={click_id}`, method: 'POST', secret });
      const { campaignId } = await insertCampaign(db, org.orgId);
      const clickId = await insertClick(db, { orgId: org.orgId, campaignId, gclid: 'G-sign' });
      const conversion = await convert(org.auth, { click_id: clickId, event: 'purchase', value: 19.99, currency: 'EUR', order_id: 'ord-1' });

      const [log] = await drain(createPostbackWorker(db, FAST), org.auth);
      expect(log).toMatchObject({ destinationId: dest.id, conversionId: conversion.id, eventName: 'purchase', status: 'delivered', attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      expect(log.deliveredAt).toBeString();
      expect(server.received).toHaveLength(3);
      for (const request of server.received) {
        expect(request.method).toBe('POST');
        expect(request.url.searchParams.get('cid')).toBe(clickId);
        expect(request.headers.get('content-type')).toBe('application/json');
        expect(request.headers.get('x-svc-signature')).toBe(hmacSha256Hex(secret, request.body));
        expect(request.headers.get('x-svc-delivery')).toBe(log.id);
      }
      expect(JSON.parse(server.received[2]!.body)).toEqual({
        id: conversion.id,
        event: 'purchase',
        click_id: clickId,
        gclid: null,
        campaign_id: campaignId,
        value: 19.99,
        currency: 'EUR',
        order_id: 'ord-1',
        matched: true,
        source: 'api',
        created_at: expect.any(String),
      });
    });

    test('a GET destination receives every macro URL-encoded', async () => {
      const org = await orgWithKey(db);
      const server = receiver(() => 204);
      await destination(org.auth, {
        url: `${server.url}/t?c={click_id}&g={gclid}&e={event}&v={value}&cur={currency}&o={order_id}&camp={campaign_id}&id={conversion_id}`,
      });
      const { campaignId } = await insertCampaign(db, org.orgId);
      const clickId = await insertClick(db, { orgId: org.orgId, campaignId, gclid: 'G/1+2' });
      const conversion = await convert(org.auth, { gclid: 'G/1+2', event: 'sign up', value: 0.5, currency: 'usd', order_id: 'a&b=c' });
      const [log] = await drain(createPostbackWorker(db, FAST), org.auth);
      expect(log).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 204 });
      const request = server.received[0]!;
      expect(request.method).toBe('GET');
      expect(request.headers.get('x-svc-signature')).toBeNull();
      expect(Object.fromEntries(request.url.searchParams)).toEqual({
        c: clickId,
        g: 'G/1+2',
        e: 'sign up',
        v: '0.5',
        cur: 'USD',
        o: 'a&b=c',
        camp: campaignId,
        id: conversion.id,
      });
    });

    test('a destination that hangs times out, is retried, and is given up after the last attempt', async () => {
      const org = await orgWithKey(db);
      const server = receiver(() => 'hang');
      await destination(org.auth, { url: `${server.url}/slow` });
      await convert(org.auth, { click_id: 'hang-click' });
      const worker = createPostbackWorker(db, { ...FAST, timeoutMs: 300, maxAttempts: 2 });
      const [, log] = await logged(() => worker.runOnce());
      expect(log).toContain('timeout after 300 ms');
      const [first] = await deliveries(org.auth);
      expect(first).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: 'delivery failed' });
      const [[last]] = await logged(() => drain(worker, org.auth));
      expect(last).toMatchObject({ status: 'failed', attempts: 2, lastError: 'gave up after 2 attempts: delivery failed' });
      expect(server.received).toHaveLength(2);
    });

    test('408 and 429 are retried; other 4xx and redirects are not, and redirects are not followed', async () => {
      const org = await orgWithKey(db);
      const target = receiver(() => 200);
      const retried = receiver((n) => (n === 0 ? 408 : n === 1 ? 429 : 200));
      const rejected = receiver(() => 404);
      const redirecting = receiver(() => new Response(null, { status: 302, headers: { location: `${target.url}/elsewhere` } }));
      await destination(org.auth, { url: `${retried.url}/r`, events: ['retried'] });
      await destination(org.auth, { url: `${rejected.url}/r`, events: ['rejected'] });
      await destination(org.auth, { url: `${redirecting.url}/r`, events: ['redirected'] });
      for (const event of ['retried', 'rejected', 'redirected']) await convert(org.auth, { click_id: 'status-click', event });
      const log = await drain(createPostbackWorker(db, FAST), org.auth);
      const byEvent = Object.fromEntries(log.map((d: { eventName: string }) => [d.eventName, d]));
      expect(byEvent.retried).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200 });
      expect(byEvent.rejected).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 404, lastError: 'HTTP 404' });
      expect(byEvent.redirected).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 302 });
      expect(target.received).toHaveLength(0);
    });

    test('a private destination is refused again at delivery when the override is off', async () => {
      const org = await orgWithKey(db);
      const server = receiver(() => 200);
      // Created while the operator allowed private targets (or before DNS changed).
      await destination(org.auth, { url: `${server.url}/internal` });
      await convert(org.auth, { click_id: 'ssrf-click' });
      const [[log], serverLog] = await logged(() => drain(createPostbackWorker(db, { ...FAST, allowPrivate: false }), org.auth));
      expect(log).toMatchObject({ status: 'failed', attempts: 1, lastError: 'destination refused' });
      // The detail is for the operator: the organization's API does not learn how names resolve.
      expect(serverLog).toContain('non-public address (127.0.0.1)');
      expect(server.received).toHaveLength(0);
    });

    test('a name that resolves to a private address at delivery is refused', async () => {
      const org = await orgWithKey(db);
      const server = receiver(() => 200);
      await destination(org.auth, { url: `${server.url.replace('127.0.0.1', 'rebinding.example')}/pb` });
      await convert(org.auth, { click_id: 'rebind-click' });
      const lookup = async () => ['10.0.0.7'];
      const [[log], serverLog] = await logged(() => drain(createPostbackWorker(db, { ...FAST, allowPrivate: false, lookup }), org.auth));
      expect(log).toMatchObject({ status: 'failed', attempts: 1, lastError: 'destination refused' });
      expect(JSON.stringify(await deliveries(org.auth))).not.toContain('10.0.0.7');
      expect(serverLog).toContain('rebinding.example resolves to a non-public address (10.0.0.7)');
    });

    test('what the network answered stays in the server log; the delivery log says only that it failed', async () => {
      const org = await orgWithKey(db);
      const closed = receiver(() => 200);
      await closed.stop();
      await destination(org.auth, { url: `${closed.url}/gone` });
      await convert(org.auth, { click_id: 'closed-click' });
      const [[log], serverLog] = await logged(() => drain(createPostbackWorker(db, { ...FAST, maxAttempts: 2 }), org.auth));
      expect(log).toMatchObject({ status: 'failed', attempts: 2, lastStatusCode: null, lastError: 'gave up after 2 attempts: delivery failed' });
      expect(serverLog).toContain('ECONNREFUSED');
      expect(serverLog).toContain(`postback delivery ${log.id} to 127.0.0.1:${closed.port}`);
    });

    test('a name is resolved once per attempt and the request goes to the address that was checked', async () => {
      const org = await orgWithKey(db);
      const checked = receiver(() => 200);
      // Where the name would lead if it were resolved again: another loopback address, same port.
      const rebound = receiver(() => 200, { hostname: '127.0.0.2', port: checked.port });
      await destination(org.auth, { url: `http://rebind.test:${checked.port}/pb` });
      await convert(org.auth, { click_id: 'pinned-click' });
      const asked: string[] = [];
      const lookup = async (host: string) => (asked.push(host) === 1 ? ['127.0.0.1'] : ['127.0.0.2']);
      const [log] = await drain(createPostbackWorker(db, { ...FAST, lookup }), org.auth);
      expect(log).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(asked).toEqual(['rebind.test']);
      expect(checked.received).toHaveLength(1);
      expect(checked.received[0]!.headers.get('host')).toBe(`rebind.test:${checked.port}`);
      expect(rebound.received).toHaveLength(0);
    });

    test('a name that answers a public address, then loopback, is sent to the public address it was checked at', async () => {
      const org = await orgWithKey(db);
      await destination(org.auth, { url: 'https://ads.rebind.test/pb?c={click_id}' });
      await convert(org.auth, { click_id: 'rebind-public' });
      let lookups = 0;
      const lookup = async () => (++lookups === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
      const sent: { url: string; host: string | null; serverName: unknown }[] = [];
      // No public server can run here: the transport is replaced to see where the request is aimed.
      const transport = spyOn(globalThis, 'fetch').mockImplementation((async (input: string | URL | Request, init?: RequestInit & { tls?: { serverName?: string } }) => {
        sent.push({ url: String(input), host: new Headers(init?.headers).get('host'), serverName: init?.tls?.serverName });
        return new Response(null, { status: 204 });
      }) as typeof fetch);
      try {
        const [log] = await drain(createPostbackWorker(db, { ...FAST, allowPrivate: false, lookup }), org.auth);
        expect(log).toMatchObject({ status: 'delivered', attempts: 1 });
      } finally {
        transport.mockRestore();
      }
      expect(lookups).toBe(1);
      expect(sent).toEqual([{ url: 'https://93.184.216.34/pb?c=rebind-public', host: 'ads.rebind.test', serverName: 'ads.rebind.test' }]);
    });

    test('a burst to one host is paced by its bucket and all of it delivered; another host is not held up', async () => {
      const org = await orgWithKey(db);
      const busy = receiver(() => 200);
      const other = receiver(() => 200, { hostname: '127.0.0.2' });
      await destination(org.auth, { url: `${busy.url}/bulk`, events: ['bulk'] });
      await destination(org.auth, { url: `${other.url}/other`, events: ['other'] });
      for (let n = 0; n < 25; n += 1) await convert(org.auth, { click_id: `bulk-${n}`, event: 'bulk' });
      for (let n = 0; n < 3; n += 1) await convert(org.auth, { click_id: `other-${n}`, event: 'other' });
      const rate = 10;
      const burst = 5;
      // When each request is handed to the network, per address: arrivals would add the event
      // loop's stalls (PGlite runs on it) to what is measured.
      const sentAt: Record<string, number[]> = {};
      const network = globalThis.fetch;
      const transport = spyOn(globalThis, 'fetch').mockImplementation(((input: string | URL | Request, init?: RequestInit) => {
        (sentAt[new URL(String(input)).hostname] ??= []).push(performance.now());
        return network(input, init);
      }) as typeof fetch);
      const worker = createPostbackWorker(db, { ...FAST, hostRatePerSecond: rate, hostBurst: burst });
      worker.start();
      try {
        await eventually(async () => (busy.received.length === 25 && other.received.length === 3 ? true : undefined));
      } finally {
        await worker.stop();
        transport.mockRestore();
      }
      // Waiting for a token is not an attempt: every delivery went out once, none was dropped.
      const log = await deliveries(org.auth);
      expect(log).toHaveLength(28);
      expect(log.filter((d: { status: string; attempts: number }) => d.status === 'delivered' && d.attempts === 1)).toHaveLength(28);
      // Any k sends to one host span at least (k - burst) / rate seconds (50 ms for timers).
      const at = sentAt['127.0.0.1']!;
      expect(at).toHaveLength(25);
      for (let i = 0; i < at.length; i += 1) {
        for (let j = i + burst; j < at.length; j += 1) expect(at[j]! - at[i]!).toBeGreaterThanOrEqual(((j - i + 1 - burst) * 1000) / rate - 50);
      }
      // The other host has a bucket of its own: its three go in the round that claims them, after at
      // most two of the busy host's bursts (its first, and the tokens held as that round begins).
      // Sharing the busy host's bucket, they would wait for slots behind its backlog.
      const otherAt = sentAt['127.0.0.2']!;
      expect(otherAt).toHaveLength(3);
      expect(at.filter((sent) => sent < Math.max(...otherAt)).length).toBeLessThanOrEqual(2 * burst);
    });

    test('event filters, repeats and deleted destinations', async () => {
      const org = await orgWithKey(db);
      const other = await orgWithKey(db, 'Other');
      const server = receiver(() => 200);
      const purchases = await destination(org.auth, { url: `${server.url}/purchases?v={value}`, events: ['purchase'] });
      const doomed = await destination(org.auth, { url: `${server.url}/doomed` });
      const lead = await convert(org.auth, { click_id: 'filter-click', event: 'lead' });
      const purchase = await convert(org.auth, { click_id: 'filter-click', event: 'purchase', order_id: 'p-1' });
      // A repeat of the same order updates the conversion but is not forwarded again.
      await convert(org.auth, { click_id: 'filter-click', event: 'purchase', order_id: 'p-1', value: 5 });
      // Another organization's conversions never reach this organization's destinations.
      await convert(other.auth, { click_id: 'filter-click', event: 'purchase' });
      const queued = await deliveries(org.auth);
      expect(queued.map((d: { destinationId: string; conversionId: string }) => `${d.destinationId}:${d.conversionId}`).sort()).toEqual(
        [`${purchases.id}:${purchase.id}`, `${doomed.id}:${lead.id}`, `${doomed.id}:${purchase.id}`].sort(),
      );
      expect(await deliveries(other.auth)).toEqual([]);
      await t.request(`/api/v1/postback-destinations/${doomed.id}`, { method: 'DELETE', headers: org.auth });
      const log = await drain(createPostbackWorker(db, FAST), org.auth);
      expect(log.filter((d: { status: string }) => d.status === 'cancelled')).toHaveLength(2);
      expect(log.filter((d: { status: string }) => d.status === 'delivered')).toHaveLength(1);
      expect(server.received.map((r) => r.url.pathname)).toEqual(['/purchases']);
      // The repeat's value is what was sent: the payload is read when the postback goes out.
      expect(server.received[0]!.url.searchParams.get('v')).toBe('5');
      const filtered = await deliveries(org.auth, `?status=cancelled&destination_id=${doomed.id}`);
      expect(filtered).toHaveLength(2);
      expect(await deliveries(org.auth, `?conversion_id=${lead.id}&limit=1`)).toHaveLength(1);
    });

    test('a restart in the middle of the retries loses nothing', async () => {
      const org = await orgWithKey(db);
      const server = receiver((n) => (n < 2 ? 500 : 200));
      await destination(org.auth, { url: `${server.url}/restart` });
      const conversion = await convert(org.auth, { click_id: 'restart-click' });
      const before = createPostbackWorker(db, FAST);
      await before.runOnce();
      await before.stop();
      const [pending] = await deliveries(org.auth);
      expect(pending).toMatchObject({ conversionId: conversion.id, status: 'pending', attempts: 1, lastStatusCode: 500 });
      const after = createPostbackWorker(db, FAST);
      const [log] = await drain(after, org.auth);
      expect(log).toMatchObject({ status: 'delivered', attempts: 3 });
      expect(server.received).toHaveLength(3);
    });

    test('stopping during an attempt releases it without counting it', async () => {
      const org = await orgWithKey(db);
      let hang = true;
      const server = receiver(() => (hang ? 'hang' : 200));
      await destination(org.auth, { url: `${server.url}/stop` });
      await convert(org.auth, { click_id: 'stop-click' });
      const stopping = createPostbackWorker(db, FAST);
      const attempt = stopping.runOnce();
      await eventually(async () => (server.received.length === 1 ? true : undefined));
      await stopping.stop();
      await attempt;
      const [released] = await deliveries(org.auth);
      expect(released).toMatchObject({ status: 'pending', attempts: 0 });
      hang = false;
      const [log] = await drain(createPostbackWorker(db, FAST), org.auth);
      expect(log).toMatchObject({ status: 'delivered', attempts: 1 });
    });

    test('a hanging destination never holds up the conversion answer', async () => {
      const org = await orgWithKey(db);
      const server = receiver(() => 'hang');
      await destination(org.auth, { url: `${server.url}/never` });
      const live = await testApp(db, { POSTBACK_ALLOW_PRIVATE: '1' }, { mirror: false });
      const res = await live.request('/api/v1/conversions', { method: 'POST', headers: org.auth, json: { click_id: 'live-click' } });
      expect(res.status).toBe(201);
      // The app's own worker picks the delivery up (woken by the commit) and is still waiting on it.
      await eventually(async () => (server.received.length === 1 ? true : undefined));
      expect((await deliveries(org.auth))[0]).toMatchObject({ status: 'pending', attempts: 1 });
      await live.services.postbackWorker.stop();
      expect((await deliveries(org.auth))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    });
  });
}
