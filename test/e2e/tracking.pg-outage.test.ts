import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { waitForOutput } from '../support/server';
import { eventually } from '../support/wait';
import { clickMany, createLinkOver, e2eBackends, startTrackingServer, storedClickIds, type E2eBackend } from './tracking-support';

/**
 * Stops the machine's real Postgres for a few seconds while the real server keeps answering.
 * Runs only when DATABASE_URL points at that server; other suites share it, so the outage is
 * kept as short as the clicks take, and Postgres is always started again.
 */
const cluster = (action: 'stop' | 'start') => {
  const version = readdirSync('/etc/postgresql')[0]!;
  const args = ['pg_ctlcluster', '--skip-systemctl-redirect', version, 'main', action, ...(action === 'stop' ? ['-m', 'fast'] : [])];
  const result = Bun.spawnSync(args, { stdout: 'pipe', stderr: 'pipe' });
  if (result.exitCode !== 0) throw new Error(`${args.join(' ')}: ${result.stderr.toString()}`);
};

/** The link's stored click ids once all of `ids` are among them (Postgres may still be coming back). */
const waitForAll = (backend: E2eBackend, dataDir: string, linkId: string, ids: string[]): Promise<Set<string>> =>
  eventually(
    async () => {
      const stored = await storedClickIds(backend, dataDir, linkId).catch(() => undefined);
      return stored && ids.every((id) => stored.has(id)) ? stored : undefined;
    },
    { timeoutMs: 60_000, everyMs: 250 },
  );

const postgres = (await e2eBackends()).find((backend) => backend.name === 'postgres');
if (postgres) {
  describe('Postgres stopped mid-load', () => {
    test(
      'redirects keep answering and every click lands once Postgres is back',
      async () => {
        const server = await startTrackingServer(postgres);
        const link = await createLinkOver(server);
        const warm = await clickMany(server, link.slug, 5, 1);
        await waitForAll(postgres, server.dataDir, link.id, warm);

        let duringOutage: string[] = [];
        try {
          cluster('stop');
          duringOutage = await clickMany(server, link.slug, 200, 8);
          // The outage lasts until the server has tried to write them and kept them journaled:
          // while clicks arrive its batcher gives way to them, so that try may come a little later.
          await waitForOutput(server, 'records kept in the journal', 20_000);
        } finally {
          cluster('start');
        }
        expect(duringOutage).toHaveLength(200);
        expect(server.output()).toContain('records kept in the journal');

        const stored = await waitForAll(postgres, server.dataDir, link.id, duringOutage);
        expect(duringOutage.filter((id) => !stored.has(id))).toEqual([]);
        expect(stored.size).toBe(205);
        expect(await server.stop('SIGTERM')).toBe(0);
      },
      120_000,
    );
  });
}
