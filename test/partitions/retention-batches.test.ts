import { describe, expect, test } from 'bun:test';
import { ulid } from 'ulid';
import { campaignPivot } from '../../src/analytics/pivot';
import type { Db, Queryable } from '../../src/db/db';
import { retentionCutoff } from '../../src/partitions/day-range';
import { runRetention } from '../../src/partitions/retention.service';
import { testMirror } from '../analytics/mirror/mirror.helpers';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { cohortQueries, cohortReports, cohortWorld, dayAt, seeded } from './retention-fixtures';

/**
 * docs/data-lifecycle.md, "Retention": the legacy and default partitions lose their rows past
 * retention a batch at a time, each batch one transaction that keeps the totals of exactly its
 * rows, deletes them and logs their range for the mirrors. A pass cut off after any transaction
 * leaves the totals equal to the rows removed, and the next pass finishes without counting a
 * row twice.
 */

/** `db`, whose transactions after the first `commits` fail after their statements ran: a pass cut off before that commit. */
function cutOffAfter(db: Db, commits: number): Db {
  let committed = 0;
  return {
    ...db,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      db.transaction(async (tx) => {
        const result = await fn(tx);
        if (committed >= commits) throw new Error('the pass was cut off');
        committed++;
        return result;
      }),
  };
}

const BATCH = 4;
const NOW = new Date(dayAt(0));
const POLICY = { clicks: 3, events: 3 } as const;
const CUTOFF = retentionCutoff(NOW, 3);

async function seed(db: Db, seedNumber: number) {
  const world = await cohortWorld(db, { timezone: 'Europe/Berlin', currency: 'EUR', seed: seedNumber, storedDays: [-6, -5, -4, -1, 0] });
  const random = seeded(seedNumber);
  // Clicks on days -6 to -4 (past retention, in the legacy partition) and -1 (kept).
  for (let i = 0; i < 30; i++) {
    const at = dayAt(random.pick([-6, -5, -4, -1]), Math.floor(random.next() * 24));
    await insertClick(db, { orgId: world.orgId, id: ulid(at), createdAt: new Date(at), campaignId: random.pick([...world.campaigns, null]) });
  }
  return world;
}

const count = async (q: Queryable, sql: string, params: unknown[]) => (await q.query<{ n: number }>(sql, params))[0]!.n;
const pastRows = (db: Db, table: 'clicks' | 'events', orgId: string) => count(db, `SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1 AND id < $2`, [orgId, CUTOFF]);
const keptClicks = (db: Db, orgId: string) =>
  count(db, `SELECT coalesce(sum(count), 0)::int AS n FROM retained_totals WHERE org_id = $1 AND source = 'clicks'`, [orgId]);

for (const backend of backends()) {
  describe(`retention in batches (${backend.name})`, () => {
    for (const commits of [3, 12]) {
      test(`cut off after ${commits} transactions, the totals match the rows removed, and the next pass finishes counting each once`, async () => {
        const db = await backend.create();
        const world = await seed(db, commits);
        const mirror = await testMirror({ db });
        const window = { orgId: world.orgId, from: new Date(dayAt(-20)).toISOString().slice(0, 10), to: new Date(dayAt(1)).toISOString().slice(0, 10) };
        const queries = cohortQueries(world);
        const reports = async () => ({
          pivot: await campaignPivot(mirror, window),
          cohorts: await cohortReports(db, mirror, world.orgId, queries),
        });
        const consistent = async () => {
          await mirror.catchUp();
          const ids = (q: { query: <T>(sql: string, params?: unknown[]) => Promise<T[]> }, table: string) =>
            q.query<{ id: string }>(`SELECT id FROM ${table} WHERE org_id = $1 ORDER BY id`, [world.orgId]).then((rows) => rows.map((row) => row.id));
          expect(await ids(mirror, 'clicks')).toEqual(await ids(db, 'clicks'));
          expect(await ids(mirror, 'events')).toEqual(await ids(db, 'events'));
        };
        const before = await reports();
        const past = { clicks: await pastRows(db, 'clicks', world.orgId), events: await pastRows(db, 'events', world.orgId) };
        expect(past.clicks).toBeGreaterThan(3 * BATCH);
        expect(past.events).toBeGreaterThan(3 * BATCH);

        await expect(runRetention({ db: cutOffAfter(db, commits), now: NOW, policy: POLICY, batchRows: BATCH })).rejects.toThrow('cut off');
        const left = { clicks: await pastRows(db, 'clicks', world.orgId), events: await pastRows(db, 'events', world.orgId) };
        // Half done: some rows removed, whole batches of them, and some still past the cutoff.
        expect(left.clicks + left.events).toBeGreaterThan(0);
        expect(past.clicks - left.clicks + past.events - left.events).toBeGreaterThan(0);
        expect((past.clicks - left.clicks) % BATCH).toBe(0);
        expect((past.events - left.events) % BATCH).toBe(0);
        expect(await keptClicks(db, world.orgId)).toBe(past.clicks - left.clicks);
        await consistent();
        expect(await reports()).toEqual(before);

        const [clicks, events] = await runRetention({ db, now: NOW, policy: POLICY, batchRows: BATCH });
        expect(clicks).toMatchObject({ dropped: [], deleted: left.clicks, batches: Math.ceil(left.clicks / BATCH) });
        expect(events).toMatchObject({ dropped: [], deleted: left.events, batches: Math.ceil(left.events / BATCH) });
        expect(await pastRows(db, 'clicks', world.orgId)).toBe(0);
        expect(await pastRows(db, 'events', world.orgId)).toBe(0);
        expect(await keptClicks(db, world.orgId)).toBe(past.clicks);
        await consistent();
        expect(await reports()).toEqual(before);

        // A range per batch in the mirrors' log, none for a batch that found nothing.
        const logged = await count(db, `SELECT count(*)::int AS n FROM mirror_deletions WHERE table_name = 'clicks' AND id_from IS NOT NULL`, []);
        expect(logged).toBe(Math.ceil(past.clicks / BATCH));
      });
    }
  });
}
