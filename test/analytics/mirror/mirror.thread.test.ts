import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Mirror } from '../../../src/analytics/mirror/mirror';
import { createMirrorThread } from '../../../src/analytics/mirror/mirror.thread';
import { testApp } from '../../support/app';
import { insertClick } from '../../support/clicks';
import { backends, createPostgres, onBeforeClose } from '../../support/db';
import { tempDir } from '../../support/temp-dir';
import { eventually } from '../../support/wait';
import { countFor, newOrg, tempDuckFile, testMirror } from './mirror.helpers';

/**
 * The message a promise rejects with. (Bun's expect().rejects never settles for a promise that
 * a worker's message rejects, so the rejection is caught here instead.)
 */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: Error) => error.message,
  );

// Thread start-up loads DuckDB and opens a connection; no assertion depends on time.
setDefaultTimeout(30_000);

/*
 * On Postgres a node's mirror runs on a thread of its own (src/analytics/mirror/mirror.thread.ts),
 * so copying rows never holds up the requests the main thread answers. PGlite's database
 * lives in the main thread, so there is no thread to test on it.
 */
for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe(`analytics mirror thread on ${backend.name}`, async () => {
    const { db, url } = await createPostgres();
    const threads: Mirror[] = [];
    // Before the database is dropped, so each thread's final catch-up still finds it.
    onBeforeClose(db, async () => {
      await Promise.all(threads.map((mirror) => mirror.stop()));
    });
    const thread = async (options: { path?: string; intervalMs?: number; busy?: () => boolean } = {}) => {
      const mirror = await createMirrorThread({ databaseUrl: url, path: options.path ?? ':memory:', intervalMs: options.intervalMs ?? 0, busy: options.busy, log: () => {} });
      threads.push(mirror);
      return mirror;
    };

    test('catchUp copies committed rows and answers with the count; queries come back typed', async () => {
      const mirror = await thread();
      const org = newOrg();
      const ids = [await insertClick(db, { orgId: org }), await insertClick(db, { orgId: org })];
      expect(await mirror.catchUp()).toBeGreaterThanOrEqual(2);
      expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 2, ids: 2 });
      const rows = await mirror.query<{ id: string; created_at: Date; n: number }>(
        'SELECT id, created_at, count(*) OVER () AS n FROM clicks WHERE org_id = $1 ORDER BY id',
        [org],
      );
      expect(rows.map((r) => r.id)).toEqual([...ids].sort());
      expect(rows[0]!.created_at).toBeInstanceOf(Date);
      expect(rows[0]!.n).toBe(2);
    });

    test('a refused query rejects with its reason and the thread goes on', async () => {
      const mirror = await thread();
      await mirror.catchUp();
      expect(await failure(mirror.query('DELETE FROM clicks'))).toContain('read-only');
      expect(await failure(mirror.query('SELECT * FROM no_such_table'))).toContain('no_such_table');
      expect(await mirror.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    });

    test('the interval copies on the thread without being asked, and waits while the node is busy', async () => {
      let busy = true;
      const mirror = await thread({ intervalMs: 20, busy: () => busy });
      const org = newOrg();
      await insertClick(db, { orgId: org });
      // Before the first round DuckDB has no tables yet: that too counts as not copied.
      const copied = async () => (await countFor(mirror, 'clicks', org).catch(() => ({ rows: 0 }))).rows === 1;
      await Bun.sleep(600); // a dozen intervals: none copies while busy
      expect(await copied()).toBe(false);
      busy = false;
      await eventually(copied);
      expect(await countFor(mirror, 'clicks', org)).toEqual({ rows: 1, ids: 1 });
    });

    test('stop copies what is left into the file before the thread ends; then calls are refused', async () => {
      const path = tempDuckFile();
      const mirror = await createMirrorThread({ databaseUrl: url, path, intervalMs: 0, log: () => {} });
      const org = newOrg();
      await insertClick(db, { orgId: org });
      await mirror.stop();
      expect(await failure(mirror.catchUp())).toContain('stopped');
      expect(await failure(mirror.query('SELECT 1'))).toContain('stopped');
      const reopened = await testMirror({ db, path });
      expect(await countFor(reopened, 'clicks', org)).toEqual({ rows: 1, ids: 1 });
    });

    test('a stop with no time left copies one batch a table on the thread too', async () => {
      const path = tempDuckFile();
      const org = newOrg();
      for (let i = 0; i < 5; i++) await insertClick(db, { orgId: org });
      const mirror = await createMirrorThread({ databaseUrl: url, path, intervalMs: 0, batchSize: 2, log: () => {} });
      await mirror.stop({ budgetMs: 0 });
      const reopened = await testMirror({ db, path, intervalMs: 0 });
      expect(await reopened.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM clicks')).toEqual([{ n: 2 }]);
    });

    test('a mirror that cannot open its DuckDB file fails to start, with the reason', async () => {
      const blocked = join(tempDir('mirror'), 'missing-dir', 'analytics.duckdb');
      expect(await failure(createMirrorThread({ databaseUrl: url, path: blocked, intervalMs: 0, log: () => {} }))).toContain('analytics.duckdb');
      expect(existsSync(blocked)).toBe(false);
    });

    test('services on Postgres run the mirror on its thread, and catchUp reaches it', async () => {
      const { services } = await testApp(db, { DATABASE_URL: url, MIRROR_INTERVAL_MS: '0' });
      const org = newOrg();
      await insertClick(db, { orgId: org });
      await services.mirror.catchUp();
      expect(await countFor(services.mirror, 'clicks', org)).toEqual({ rows: 1, ids: 1 });
    });
  });
}
