import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { createPostgres } from '../support/db';
import { apiKeyOver } from '../support/over-http';
import { startServer } from '../support/server';
import { eventually } from '../support/wait';
import { receiver } from './receiver';

const stores: { name: string; env: () => Promise<Record<string, string>> }[] = [{ name: 'pglite', env: async () => ({}) }];
if (process.env.DATABASE_URL) stores.push({ name: 'postgres', env: async () => ({ DATABASE_URL: (await createPostgres({ migrated: false })).url }) });

for (const store of stores) {
  describe(`postback retries across a crash of the real server on ${store.name}`, () => {
    test('a delivery that failed before the crash is retried and delivered after the restart', async () => {
      const endpoint = receiver((n) => (n < 2 ? 500 : 200));
      const env = { ...(await store.env()), POSTBACK_ALLOW_PRIVATE: '1' };
      let server = await startServer(env, { timeoutMs: 120_000 });
      try {
        const auth = { authorization: `Bearer ${await apiKeyOver(server)}`, 'content-type': 'application/json' };
        const created = await fetch(`${server.url}/api/v1/postback-destinations`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ url: `${endpoint.url}/pb?cid={click_id}&o={order_id}` }),
        });
        expect(created.status).toBe(201);
        const conversion = await fetch(`${server.url}/api/v1/conversions`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ click_id: 'restart-click', order_id: 'R-1' }),
        });
        expect(conversion.status).toBe(201);
        // The first attempt fails; the process dies before the retry is due.
        await eventually(async () => (endpoint.received.length >= 1 ? true : undefined));
        await server.stop('SIGKILL');
        expect(endpoint.received).toHaveLength(1);

        server = await startServer(env, { dataDir: server.dataDir, timeoutMs: 120_000 });
        const log = await eventually(async () => {
          const res = await fetch(`${server.url}/api/v1/postback-deliveries`, { headers: auth });
          const { data } = (await res.json()) as { data: { status: string; attempts: number; lastStatusCode: number }[] };
          return data[0]?.status === 'delivered' ? data[0] : undefined;
        }, { timeoutMs: 60_000, everyMs: 200 });
        expect(log).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200 });
        expect(endpoint.received).toHaveLength(3);
        expect(endpoint.received.every((r) => r.url.searchParams.get('o') === 'R-1' && r.url.searchParams.get('cid') === 'restart-click')).toBe(true);
      } finally {
        await server.stop('SIGTERM');
      }
    }, 300_000);
  });
}
