import { describe, expect, test } from 'bun:test';
import { ulid } from 'ulid';
import { campaignPivot } from '../../src/analytics/pivot';
import type { Db } from '../../src/db/db';
import { dayRange, utcDayStart } from '../../src/partitions/day-range';
import { listPartitions } from '../../src/partitions/partitions.repo';
import { ensureDayPartitions } from '../../src/partitions/partitions.service';
import { runRetention } from '../../src/partitions/retention.service';
import { newOrg, testMirror } from '../analytics/mirror/mirror.helpers';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';

const DAY = 86_400_000;
const today = utcDayStart(new Date());
/** Noon of the UTC day `offset` days from today. */
const noon = (offset: number) => today + offset * DAY + DAY / 2;

async function clickOn(db: Db, orgId: string, offset: number, campaignId: string | null = 'cmp_a', dropReason: string | null = null) {
  return insertClick(db, { orgId, id: ulid(noon(offset)), createdAt: new Date(noon(offset)), campaignId, dropReason });
}

async function purchaseOn(db: Db, orgId: string, offset: number, value: number) {
  await db.query(
    `INSERT INTO events (id, org_id, app_id, device_id_hash, name, value, currency, occurred_at)
     VALUES ($1, $2, 'app_a', 'dev', 'purchase', $3, 'USD', $4)`,
    [ulid(noon(offset)), orgId, value, new Date(noon(offset))],
  );
}

const ids = async (db: Db, orgId: string) =>
  (await db.query<{ id: string }>(`SELECT id FROM clicks WHERE org_id = $1 ORDER BY id`, [orgId])).map((r) => r.id);

for (const backend of backends()) {
  describe(`retention (${backend.name})`, () => {
    test('drops exactly the days past it, the mirror follows, and the pivot keeps its totals', async () => {
      const db = await backend.create();
      const org = newOrg();
      await ensureDayPartitions({ db, now: new Date(noon(1)) }, 12);
      const offsets = [-2, 2, 5, 6, 7, 9, 30];
      const made = new Map<number, string>();
      const idOn = (offset: number) => made.get(offset)!;
      for (const offset of offsets) made.set(offset, await clickOn(db, org, offset));
      await clickOn(db, org, 5, null);
      await clickOn(db, org, 5, 'cmp_a', 'bot');
      await purchaseOn(db, org, 2, 10);
      await purchaseOn(db, org, 9, 4);
      const mirror = await testMirror({ db });
      const window = { orgId: org, from: new Date(noon(-3)).toISOString().slice(0, 10), to: new Date(noon(31)).toISOString().slice(0, 10) };
      const before = await campaignPivot(mirror, window);
      expect(before.reduce((sum, row) => sum + row.clicks, 0)).toBe(8);
      expect(before.reduce((sum, row) => sum + row.revenue, 0)).toBe(14);

      // Three whole days kept before "today", ten days from now: day +7 is the first kept.
      const now = new Date(noon(10));
      const [clicks] = await runRetention({ db, now, policy: { clicks: 3, events: 3 } });
      const firstKept = dayRange(utcDayStart(now, -3));
      expect(clicks!.cutoff).toBe(firstKept.lower);
      const expectedDrops = ['clicks_legacy', ...[1, 2, 3, 4, 5, 6].map((o) => `clicks_d${dayRange(utcDayStart(new Date(), o)).day}`)];
      expect(clicks!.dropped.sort()).toEqual(expectedDrops.sort());
      expect(clicks!.deleted).toBe(0);
      const names = (await listPartitions(db, 'clicks')).map((p) => p.name);
      expect(names).toContain(`clicks_d${firstKept.day}`);
      expect(await ids(db, org)).toEqual([idOn(7), idOn(9), idOn(30)]);

      await mirror.catchUp();
      const mirrored = await mirror.query<{ id: string }>(`SELECT id FROM clicks WHERE org_id = $1 ORDER BY id`, [org]);
      expect(mirrored.map((r) => r.id)).toEqual([idOn(7), idOn(9), idOn(30)]);
      const events = await mirror.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM events WHERE org_id = $1`, [org]);
      expect(events[0]!.n).toBe(1);
      expect(await campaignPivot(mirror, window)).toEqual(before);

      // A late click for a dropped day lands in the default partition; the next pass deletes it
      // and adds it to the day's totals.
      await clickOn(db, org, 3);
      await clickOn(db, org, 8);
      const [again] = await runRetention({ db, now, policy: { clicks: 3 } });
      expect(again).toMatchObject({ dropped: [], deleted: 1 });
      await mirror.catchUp();
      const after = await campaignPivot(mirror, window);
      const day3 = new Date(noon(3)).toISOString().slice(0, 10);
      expect(after.find((r) => r.day === day3 && r.campaign_id === 'cmp_a')?.clicks).toBe(1);
      expect((await ids(db, org)).length).toBe(4);
    });

    test('no retention set keeps everything', async () => {
      const db = await backend.create();
      const org = newOrg();
      await clickOn(db, org, -400);
      expect(await runRetention({ db, now: new Date(), policy: {} })).toEqual([]);
      expect((await ids(db, org)).length).toBe(1);
    });

    test('a pass deletes no other table and no kept day', async () => {
      const db = await backend.create();
      const org = newOrg();
      const kept = await clickOn(db, org, 0);
      await clickOn(db, org, -5);
      await db.query(`INSERT INTO impressions (id, org_id, ip_day_hash, household_hash, created_at) VALUES ($1, $2, 'h', 'h', now())`, [ulid(noon(-5)), org]);
      const [result] = await runRetention({ db, now: new Date(), policy: { clicks: 2 } });
      expect(result).toMatchObject({ table: 'clicks', dropped: [], deleted: 1 });
      expect(await ids(db, org)).toEqual([kept]);
      const [imp] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM impressions WHERE org_id = $1`, [org]);
      expect(imp!.n).toBe(1);
    });
  });
}
