import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { eventually } from '../../support/wait';
import type { Queryable } from '../../../src/db/db';
import { countFor, newOrg, tempDuckFile, testMirror } from './mirror.helpers';

// Database boots and DuckDB files on a shared, loaded machine; no assertion depends on time.
setDefaultTimeout(40_000);

/*
 * The mirror gives way while the node's ingest is busy, but for a bounded time: a round that
 * has waited the longest deferral copies everything, even if the node is still busy.
 */
for (const backend of backends()) {
  describe(`analytics mirror under load on ${backend.name}`, async () => {
    const db = await backend.create();
    const copied = async (mirror: Awaited<ReturnType<typeof testMirror>>, org: string) =>
      (await countFor(mirror, 'clicks', org).catch(() => ({ rows: 0 }))).rows;

    test('interval rounds wait while busy and copy once the node is idle', async () => {
      let busy = true;
      const org = newOrg();
      const mirror = await testMirror({ db, tables: ['clicks'], intervalMs: 10, busy: () => busy, maxDeferralMs: 60_000 });
      await insertClick(db, { orgId: org });
      mirror.start();
      await Bun.sleep(300); // thirty intervals
      expect(await copied(mirror, org)).toBe(0);
      busy = false;
      await eventually(async () => (await copied(mirror, org)) > 0);
      expect(await copied(mirror, org)).toBe(1);
    });

    test('after the longest deferral a round copies every batch although the node stays busy', async () => {
      const org = newOrg();
      for (let i = 0; i < 20; i++) await insertClick(db, { orgId: org });
      // batchSize 3: twenty rows need seven batches; a round that gave way after its first batch
      // would copy three, and the next round would come only after another 5 s deferral.
      const mirror = await testMirror({ db, tables: ['clicks'], intervalMs: 10, batchSize: 3, busy: () => true, maxDeferralMs: 5_000 });
      mirror.start();
      await eventually(async () => (await copied(mirror, org)) > 0);
      await Bun.sleep(1_000); // the first round finishes; the next is 4 s away
      expect(await copied(mirror, org)).toBe(20);
    });
  });
}

for (const backend of backends()) {
  describe(`analytics mirror stopped mid-round on ${backend.name}`, async () => {
    const db = await backend.create();
    const copied = async (mirror: Awaited<ReturnType<typeof testMirror>>, org: string) =>
      (await countFor(mirror, 'clicks', org).catch(() => ({ rows: 0 }))).rows;

    test('an interval round under way ends at a stop; the stop keeps to its budget and the rest is copied at the next start', async () => {
      const org = newOrg();
      for (let i = 0; i < 30; i++) await insertClick(db, { orgId: org });
      // Every read from Postgres takes 30 ms: thirty one-row batches are a round of about a second.
      const slow: Queryable = { query: async (sql, params) => (await Bun.sleep(30), db.query(sql, params)) } as Queryable;
      const path = tempDuckFile();
      const mirror = await testMirror({ db: slow, path, tables: ['clicks'], intervalMs: 10, batchSize: 1 });
      mirror.start();
      await eventually(async () => (await copied(mirror, org)) > 0);
      await mirror.stop({ budgetMs: 0 });
      // The round under way stopped after its batch in flight, and the stop copied one more:
      // a round that ran to its end would have copied all thirty before the stop returned.
      const reopened = await testMirror({ db, path, tables: ['clicks'] });
      const afterStop = (await countFor(reopened, 'clicks', org)).rows;
      expect(afterStop).toBeGreaterThan(0);
      expect(afterStop).toBeLessThan(30);
      await reopened.catchUp();
      expect(await countFor(reopened, 'clicks', org)).toEqual({ rows: 30, ids: 30 });
    });

  });
}
