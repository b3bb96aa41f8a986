import { describe, expect, test } from 'bun:test';
import { eventually } from '../support/wait';
import { clickOnce, createLinkOver, e2eBackends, segmentFiles, startTrackingServer, storedClickIds } from './tracking-support';

const WORKERS = 16;

for (const backend of await e2eBackends()) {
  describe(`SIGTERM under load on ${backend.name}`, () => {
    test(
      'the server stops cleanly and every answered click is in the database, none left in the journal',
      async () => {
        const server = await startTrackingServer(backend);
        const link = await createLinkOver(server);
        const answered: string[] = [];
        let running = true;
        const workers = Array.from({ length: WORKERS }, async () => {
          while (running) {
            const id = await clickOnce(server, link.slug);
            if (id) answered.push(id);
            else if (server.proc.exitCode !== null || server.proc.signalCode !== null) return;
          }
        });
        await eventually(() => answered.length >= 300, { timeoutMs: 60_000, everyMs: 20 });

        // On Postgres the clicks table is held while the signal arrives, so the last batches can
        // only be written by the shutdown flush itself.
        let release = () => {};
        if (backend.db) {
          await new Promise<void>((locked) => {
            void backend.db!.transaction(async (tx) => {
              await tx.query('LOCK TABLE clicks IN EXCLUSIVE MODE');
              locked();
              await new Promise<void>((resolve) => (release = resolve));
            });
          });
        }
        const exited = server.stop('SIGTERM');
        await Bun.sleep(500);
        release();
        expect(await exited).toBe(0);
        running = false;
        await Promise.all(workers);

        expect(server.output()).toContain('SIGTERM');
        expect(segmentFiles(server.dataDir)).toEqual([]);
        const stored = await storedClickIds(backend, server.dataDir, link.id);
        expect(answered.length).toBeGreaterThanOrEqual(300);
        expect(answered.filter((id) => !stored.has(id))).toEqual([]);
        expect(stored.size).toBe(answered.length);
      },
      120_000,
    );
  });
}
