import { describe, expect, test } from 'bun:test';
import { TOO_DEEP } from '../../src/http/json-body';
import { waitForOutput, type RunningServer } from '../support/server';
import { createLinkOver, e2eBackends, startTrackingServer, type E2eBackend } from './tracking-support';

/**
 * A hostile client's body of 100,000 nested objects (600 KB) on the real server process: it is
 * refused with the 400 before anything walks it, and the node answers redirects and health
 * checks while such bodies arrive. On Postgres with a tracking listener thread, whichever
 * thread's socket takes a connection. Each request opens its own connection.
 */
const DEPTH = 100_000;
const DEEP_BODY = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
const BODIES = 8;
const fresh = { keepalive: false, redirect: 'manual' } as const;

async function appOver(server: RunningServer, apiKey: string): Promise<{ id: string; sdkKey: string }> {
  const res = await fetch(`${server.url}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ name: 'Nested', platform: 'android' }),
  });
  const app = (await res.json()) as { id: string; sdk_key: string };
  return { id: app.id, sdkKey: app.sdk_key };
}

async function status(response: Promise<Response>): Promise<{ status: number; body: string }> {
  const res = await response;
  return { status: res.status, body: await res.text() };
}

for (const backend of await e2eBackends()) {
  const threads = backend.name === 'postgres' ? 1 : 0;
  describe(`bodies nested ${DEPTH} levels on the real server, ${backend.name}, ${threads === 0 ? 'no listener thread' : 'a listener thread'}`, () => {
    test(
      'each is the 400 and never a 500; /c and /api/health are answered while they arrive',
      async () => {
        const server = await startTrackingServer({ ...backend, env: { ...backend.env, TRACKING_THREADS: String(threads) } } as E2eBackend);
        try {
          if (threads > 0) await waitForOutput(server, `${threads + 1} threads answering redirects`);
          const link = await createLinkOver(server);
          const app = await appOver(server, link.apiKey);
          const deep = (i: number) =>
            i % 2 === 0
              ? fetch(`${server.url}/api/sdk/v1/events`, { ...fresh, method: 'POST', headers: { 'content-type': 'application/json', 'x-sdk-key': app.sdkKey }, body: DEEP_BODY })
              : fetch(`${server.url}/api/v1/apps/${app.id}/forwarder`, { ...fresh, method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${link.apiKey}` }, body: DEEP_BODY });
          const [nested, clicks, health] = await Promise.all([
            Promise.all(Array.from({ length: BODIES }, (_, i) => status(deep(i)))),
            Promise.all(Array.from({ length: BODIES }, () => status(fetch(`${server.url}/c/${link.slug}`, fresh)))),
            Promise.all(Array.from({ length: BODIES }, () => status(fetch(`${server.url}/api/health`, fresh)))),
          ]);
          for (const answer of nested) expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({ status: 400, body: { error: { formErrors: [TOO_DEEP], fieldErrors: {} } } });
          expect(clicks.map((answer) => answer.status)).toEqual(Array(BODIES).fill(302));
          expect(health.map((answer) => answer.status)).toEqual(Array(BODIES).fill(200));
          expect((await fetch(`${server.url}/api/health`, fresh)).status).toBe(200);
          expect(server.output()).not.toContain('RangeError');
          expect(server.output()).not.toContain('unhandled error');
          expect(server.output()).not.toContain('forwarding to the main thread failed');
        } finally {
          expect(await server.stop('SIGTERM')).toBe(0);
        }
      },
      120_000,
    );
  });
}
