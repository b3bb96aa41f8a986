import '../support/slow-suite';
import { afterAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { startPrivatePostgres } from '../support/private-postgres';
import { freePort, startServer } from '../support/server';
import { createLinkOver } from '../support/over-http';

/**
 * Postgres restarted under /c load: the node keeps answering, and once Postgres is back its click
 * writer resumes on its own; every answered click lands, with no restart of the node. Runs with the
 * Postgres suite (DATABASE_URL set), on a Postgres server of its own that it stops and starts.
 */
const LOAD_MS = 20_000;
const OUTAGE_AT_MS = 5_000;
const OUTAGE_MS = 10_000;
const LANDED_WITHIN_MS = 30_000;

/** Requests `url` from `connections` loops until `untilMs`; counts the 302s. */
async function load(url: string, connections: number, untilMs: number): Promise<number> {
  let redirects = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < untilMs) {
        try {
          const res = await fetch(url, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) e2e-load' } });
          await res.arrayBuffer();
          if (res.status === 302) redirects++;
        } catch {}
      }
    }),
  );
  return redirects;
}

if (process.env.DATABASE_URL) {
  describe('Postgres restarted under load', async () => {
    const pg = await startPrivatePostgres();
    afterAll(() => pg.remove());
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    afterAll(() => admin.end({ timeout: 1 }));

    for (const threads of [0, 1]) {
      test(`with ${threads} listener thread(s): every answered click is in Postgres within 30 s of the restart`, async () => {
        const database = `restart_${threads}_${Date.now()}`;
        await admin.unsafe(`CREATE DATABASE ${database}`);
        const port = await freePort();
        const server = await startServer({
          DATABASE_URL: pg.url.replace(/\/postgres$/, `/${database}`),
          PORT: String(port),
          TRACKING_URL: `http://127.0.0.1:${port}`,
          TRACKING_THREADS: String(threads),
        });
        try {
          const link = await createLinkOver(server);
          const started = Date.now();
          const answered = load(`${server.url}/c/${link.slug}`, 8, started + LOAD_MS);
          await Bun.sleep(OUTAGE_AT_MS);
          pg.stop();
          await Bun.sleep(OUTAGE_MS);
          pg.start();
          const restartedAt = Date.now();
          const redirects = await answered;
          expect(redirects).toBeGreaterThan(1000);

          const landed = postgres(pg.url.replace(/\/postgres$/, `/${database}`), { max: 1, onnotice: () => {} });
          let stored = -1;
          try {
            while (Date.now() - restartedAt < LANDED_WITHIN_MS) {
              const [row] = await landed`SELECT count(*)::int AS n FROM clicks WHERE link_id = ${link.id}`.catch(() => [{ n: -1 }]);
              stored = (row as { n: number }).n;
              if (stored === redirects) break;
              await Bun.sleep(250);
            }
          } finally {
            await landed.end({ timeout: 1 });
          }
          expect(stored).toBe(redirects);
          expect(server.proc.exitCode).toBeNull();
          const health = await (await fetch(`${server.url}/api/health`)).json();
          expect(health).toMatchObject({ status: 'ok', db: 'ok', clicks: { writer: 'ok', backlog: 0 } });
        } finally {
          await server.stop('SIGTERM');
        }
        expect(server.proc.exitCode).toBe(0);
      }, 180_000);
    }
  });
}
