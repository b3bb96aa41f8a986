import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { startServer, waitForOutput, type RunningServer } from '../support/server';
import { createLinkOver, e2eBackends, journalDirs, journaledClickIds, lockClicksTable, startTrackingServer, storedClickIds, type E2eBackend } from './tracking-support';

/**
 * Tracking listener threads (src/tracking/listeners/listeners.ts) on the real server process: on Postgres
 * GET /c is answered by the main thread and TRACKING_THREADS more, on one port. Each request
 * here opens its own connection, so the kernel spreads them over every thread.
 */
const fresh = { keepalive: false, redirect: 'manual' } as const;

async function clickFresh(server: RunningServer, slug: string): Promise<{ status: number; id: string | null }> {
  const res = await fetch(`${server.url}/c/${slug}?url=${encodeURIComponent('https://landing.example.com/x')}`, fresh);
  await res.arrayBuffer();
  const location = res.headers.get('location');
  return { status: res.status, id: location ? new URL(location).searchParams.get('svc_click_id') : null };
}

async function clicksFresh(server: RunningServer, slug: string, count: number) {
  return Promise.all(Array.from({ length: count }, () => clickFresh(server, slug)));
}

const postgres = (await e2eBackends()).find((backend) => backend.name === 'postgres');
if (postgres) {
  const start = (threads: number, dataDir?: string, port?: number) =>
    port === undefined
      ? startTrackingServer({ ...postgres, env: { ...postgres.env, TRACKING_THREADS: String(threads) } } as E2eBackend, dataDir)
      : startServer({ ...postgres.env, TRACKING_THREADS: String(threads), PORT: String(port), TRACKING_URL: `http://127.0.0.1:${port}` }, { dataDir });

  describe('tracking listener threads on postgres', () => {
    test(
      'both threads answer clicks; after kill -9 and a restart without the thread, every click is stored',
      async () => {
        const server = await start(1);
        // The server answers /api/health once its main thread listens; the threads start next.
        await waitForOutput(server, '2 threads answering redirects');
        const link = await createLinkOver(server);
        // Hold the clicks table: every answered click then exists only in a journal at the kill.
        const release = await lockClicksTable(postgres.db!);
        let answered: string[] = [];
        try {
          const results = await clicksFresh(server, link.slug, 200);
          expect(results.map((result) => result.status)).toEqual(Array(200).fill(302));
          answered = results.map((result) => result.id!);
          await server.stop('SIGKILL');
        } finally {
          release();
        }
        const [mainJournal, listenerJournal] = journalDirs(server.dataDir);
        expect(listenerJournal).toBe(join(server.dataDir, 'listeners', '0', 'journal'));
        const byMain = journaledClickIds(server.dataDir, [mainJournal!]);
        const byListener = journaledClickIds(server.dataDir, [listenerJournal!]);
        // Both threads took connections, and between them journaled every answered click.
        expect(byMain.size).toBeGreaterThan(0);
        expect(byListener.size).toBeGreaterThan(0);
        expect(answered.filter((id) => !byMain.has(id) && !byListener.has(id))).toEqual([]);

        // Restarted with no listener thread: the retired thread's journal is written at boot.
        const restarted = await start(0, server.dataDir, server.port);
        expect(restarted.output()).not.toContain('threads answering redirects');
        const stored = await storedClickIds(postgres, server.dataDir, link.id);
        expect(answered.filter((id) => !stored.has(id))).toEqual([]);
        expect(stored.size).toBe(200);
        expect(await restarted.stop('SIGTERM')).toBe(0);
      },
      120_000,
    );

    test(
      'a link change takes effect at once on every thread, whichever thread took the write',
      async () => {
        const server = await start(1);
        await waitForOutput(server, '2 threads answering redirects');
        try {
          const link = await createLinkOver(server);
          // Every thread has the link cached.
          expect((await clicksFresh(server, link.slug, 20)).map((r) => r.status)).toEqual(Array(20).fill(302));
          for (const [status, expected] of [['paused', 404], ['active', 302], ['paused', 404]] as const) {
            const patched = await fetch(`${server.url}/api/v1/links/${link.id}`, {
              ...fresh,
              method: 'PATCH',
              headers: { authorization: `Bearer ${link.apiKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({ status }),
            });
            expect(patched.status).toBe(200);
            // The very next clicks, on new connections to either thread, see the change.
            expect((await clicksFresh(server, link.slug, 20)).map((r) => r.status)).toEqual(Array(20).fill(expected));
          }
        } finally {
          expect(await server.stop('SIGTERM')).toBe(0);
        }
      },
      60_000,
    );

    test(
      'API requests reach the main thread from either thread',
      async () => {
        const server = await start(1);
        await waitForOutput(server, '2 threads answering redirects');
        try {
          const link = await createLinkOver(server);
          const responses = await Promise.all(
            Array.from({ length: 30 }, () => fetch(`${server.url}/api/v1/links/${link.id}`, { ...fresh, headers: { authorization: `Bearer ${link.apiKey}` } })),
          );
          expect(responses.map((res) => res.status)).toEqual(Array(30).fill(200));
          for (const res of responses) expect(((await res.json()) as { id: string }).id).toBe(link.id);
          // A method the tracking routes do not take is the app's 405, from either thread.
          const posts = await Promise.all(Array.from({ length: 10 }, () => fetch(`${server.url}/c/${link.slug}`, { ...fresh, method: 'POST' })));
          expect(posts.map((res) => res.status)).toEqual(Array(10).fill(405));
        } finally {
          expect(await server.stop('SIGTERM')).toBe(0);
        }
      },
      60_000,
    );
  });
}
