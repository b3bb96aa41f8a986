import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createPostgres } from '../support/db';
import { startServer } from '../support/server';

/**
 * The realtime stream on a real socket: a click answered by the server shows in the stream, and
 * a SIGTERM ends the open stream at once, so the stop does not wait for its deadline.
 */

setDefaultTimeout(180_000);
const BOOT_MS = 120_000;
const backends = ['pglite', ...(process.env.DATABASE_URL ? ['postgres'] : [])];

/** On Postgres also with tracking listener threads: clicks they answer reach the stream too. */
const cases = backends.flatMap((backend) => [{ backend, threads: 0 }, ...(backend === 'postgres' ? [{ backend, threads: 2 }] : [])]);

for (const { backend, threads } of cases) {
  describe(`the realtime stream of a real server on ${backend}, ${threads} listener threads`, () => {
    test('counts clicks at once and ends cleanly when the node stops', async () => {
      const env: Record<string, string> = { TRACKING_THREADS: String(threads) };
      if (backend === 'postgres') env.DATABASE_URL = (await createPostgres({ migrated: false })).url;
      const server = await startServer(env, { timeoutMs: BOOT_MS });
      const base = `http://localhost:${server.port}`;
      try {
        const registered = await fetch(`${base}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: base },
          body: JSON.stringify({ email: `rt-${Date.now()}@example.com`, password: 'correct horse', organization: 'Realtime' }),
        });
        expect(registered.status).toBe(201);
        const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
        const link = await fetch(`${base}/api/dashboard/links`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: base, cookie },
          body: JSON.stringify({ destination: 'https://shop.example.com/', slug: 'rt-link' }),
        });
        expect(link.status).toBe(201);

        const stream = await fetch(`${base}/api/dashboard/realtime`, { headers: { cookie, accept: 'text/event-stream' } });
        expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
        const reader = stream.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        // The stream polls once a second and nodes add their counts every 0.5 s: 5 s is plenty.
        const waitFor = async (pattern: RegExp, timeoutMs = 5_000) => {
          const deadline = Date.now() + timeoutMs;
          while (!pattern.test(text)) {
            const timeout = Bun.sleep(Math.max(0, deadline - Date.now())).then(() => 'timeout' as const);
            const read = await Promise.race([reader.read(), timeout]);
            if (read === 'timeout') throw new Error(`no ${pattern} within ${timeoutMs} ms: ${text.slice(-300)}`);
            if (read.done) throw new Error(`stream ended before ${pattern}: ${text}`);
            text += decoder.decode(read.value);
          }
        };
        await waitFor(/"clicks":0,/);
        // A connection each, so the kernel spreads them over the threads sharing the port.
        for (let i = 0; i < 8; i++) {
          const click = await fetch(`${base}/c/rt-link`, { redirect: 'manual', headers: { connection: 'close', 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' } });
          expect(click.status).toBe(302);
        }
        await waitFor(/"clicks":8,/);

        server.proc.kill('SIGTERM');
        // The stream ends (done, or a reset the socket's close causes), and the stop does not wait
        // for it until the deadline (main.ts exits 1 past it).
        const ended = await (async () => {
          for (;;) {
            const { done } = await reader.read();
            if (done) return true;
          }
        })().catch(() => true);
        expect(ended).toBe(true);
        expect(await server.proc.exited).toBe(0);
        expect(server.output()).not.toContain('did not finish within');
        expect(server.output()).toContain('stopped');
      } finally {
        if (server.proc.exitCode === null) await server.stop();
      }
    });
  });
}
