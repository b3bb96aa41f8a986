import { describe, expect, test } from 'bun:test';
import { ulid } from 'ulid';
import { createPartitionKeeper } from '../../src/partitions/partition-keeper';
import { backends } from '../support/db';
import { insertClick } from '../support/clicks';

const DAY = 86_400_000;

for (const backend of backends()) {
  describe(`partition keeper (${backend.name})`, () => {
    test('a round makes the partitions ahead and runs retention; a node without the lock skips retention', async () => {
      const db = await backend.create();
      const old = await insertClick(db, { orgId: 'org_k', id: ulid(Date.now() - 10 * DAY), createdAt: new Date(Date.now() - 10 * DAY) });
      const kept = await insertClick(db, { orgId: 'org_k' });
      const lines: string[] = [];
      const keeper = createPartitionKeeper({ db, clock: () => new Date(), retention: { clicks: 5 }, daysAhead: 2, log: (line) => lines.push(line) });
      const round = await keeper.runOnce();
      // Today is the legacy partition's (sql/0119); the next two days are made.
      expect(round.made.filter((p) => p.table === 'clicks')).toHaveLength(2);
      expect(round.retention).toEqual([expect.objectContaining({ table: 'clicks', deleted: 1 })]);
      expect(lines.some((line) => line.startsWith('retention: clicks'))).toBe(true);
      const rows = await db.query<{ id: string }>(`SELECT id FROM clicks WHERE org_id = 'org_k'`);
      expect(rows.map((r) => r.id)).toEqual([kept]);
      expect(rows.map((r) => r.id)).not.toContain(old);

      const held = await db.tryAdvisoryLock(727_046);
      expect(held).not.toBeNull();
      expect((await keeper.runOnce()).retention).toBeNull();
      await held!.release();
      const idle = await keeper.runOnce();
      expect(idle.made).toEqual([]);
      expect(idle.retention).toEqual([expect.objectContaining({ table: 'clicks', dropped: [], deleted: 0 })]);
      await keeper.stop();
    });
  });
}
