import { describe, expect, test } from 'bun:test';
import {
  clickMany,
  createLinkOver,
  e2eBackends,
  journaledClickIds,
  restartTrackingServer,
  segmentFiles,
  startTrackingServer,
  storedClickIds,
} from './tracking-support';

const CLICKS = 400;

/** A link of each kind that answers every visit with a 302: /c's clicks and /l's are staged and written the same way. */
async function linkFor(server: Awaited<ReturnType<typeof startTrackingServer>>, path: 'c' | 'l'): Promise<{ slug: string; id: string }> {
  const tracking = await createLinkOver(server);
  if (path === 'c') return tracking;
  const response = await fetch(`${server.url}/api/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tracking.apiKey}` },
    body: JSON.stringify({ kind: 'smart', destination: 'https://shop.example.com/', rules: [{ name: 'all', if: {}, then: { url: 'https://landing.example.com/' } }] }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { slug: string; id: string };
}

for (const backend of await e2eBackends()) {
  describe(`kill -9 of the real server on ${backend.name}`, () => {
    test.each(['c', 'l'] as const)(
      'every click answered with a 302 by /%s is in the database after a restart',
      async (path) => {
        const server = await startTrackingServer(backend);
        const link = await linkFor(server, path);
        // On Postgres the test holds the clicks table so no batch can commit: every answered
        // click then exists only in the journal when the process dies.
        let release = () => {};
        const held = backend.db
          ? new Promise<void>((locked) => {
              void backend.db!.transaction(async (tx) => {
                await tx.query('LOCK TABLE clicks IN EXCLUSIVE MODE');
                locked();
                await new Promise<void>((resolve) => (release = resolve));
              });
            })
          : Promise.resolve();
        await held;
        let answered: string[] = [];
        try {
          answered = await clickMany(server, link.slug, CLICKS, 16, path);
          expect(answered).toHaveLength(CLICKS);
          await server.stop('SIGKILL');
        } finally {
          release();
        }

        const journaled = journaledClickIds(server.dataDir);
        const committedBeforeRestart = await storedClickIds(backend, server.dataDir, link.id);
        if (backend.db) expect(journaled.size).toBe(CLICKS);
        // Nothing answered was only in memory: each click is in the journal or already stored.
        expect(answered.filter((id) => !journaled.has(id) && !committedBeforeRestart.has(id))).toEqual([]);
        console.log(`${backend.name}: ${journaled.size} clicks in the journal, ${committedBeforeRestart.size} stored at the kill`);

        const restarted = await restartTrackingServer(backend, server);
        // The journal is replayed before the server answers its first request.
        if (backend.db) expect((await storedClickIds(backend, server.dataDir, link.id)).size).toBe(CLICKS);
        expect(await restarted.stop('SIGTERM')).toBe(0);
        const stored = await storedClickIds(backend, server.dataDir, link.id);
        expect(answered.filter((id) => !stored.has(id))).toEqual([]);
        expect(stored.size).toBe(CLICKS);
        expect(segmentFiles(server.dataDir)).toEqual([]);
      },
      120_000,
    );
  });
}
