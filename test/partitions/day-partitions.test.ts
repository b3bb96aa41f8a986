import { describe, expect, test } from 'bun:test';
import { ulid } from 'ulid';
import type { Db } from '../../src/db/db';
import { dayRange, utcDayStart } from '../../src/partitions/day-range';
import { PARTITIONED_TABLES } from '../../src/partitions/partition-tables';
import { listPartitions } from '../../src/partitions/partitions.repo';
import { ensureDayPartitions } from '../../src/partitions/partitions.service';
import { backends } from '../support/db';

const DAY = 86_400_000;

async function insertClick(db: Db, id: string, at: Date) {
  await db.query(`INSERT INTO clicks (id, org_id, created_at, next_hop_url) VALUES ($1, 'org_a', $2, 'https://example.com/')`, [id, at]);
}

/** The partition holding a click, by the system column tableoid. */
async function partitionOf(db: Db, id: string): Promise<string | undefined> {
  const rows = await db.query<{ part: string }>(`SELECT tableoid::regclass::text AS part FROM clicks WHERE id = $1`, [id]);
  return rows[0]?.part;
}

for (const backend of backends()) {
  describe(`day partitions (${backend.name})`, () => {
    test('the node makes a week of day partitions ahead for every partitioned table, once', async () => {
      const db = await backend.create();
      const now = new Date(Date.now() + 40 * DAY);
      const made = await ensureDayPartitions({ db, now }, 7);
      expect(made).toHaveLength(8 * PARTITIONED_TABLES.length);
      for (const { table } of PARTITIONED_TABLES) {
        const names = (await listPartitions(db, table)).map((p) => p.name);
        for (let offset = 0; offset <= 7; offset++) expect(names).toContain(`${table}_d${dayRange(utcDayStart(now, offset)).day}`);
        expect(names).toContain(`${table}_legacy`);
        expect(names).toContain(`${table}_default`);
      }
      expect(await ensureDayPartitions({ db, now }, 7)).toEqual([]);
      // A day later only the new last day is missing.
      const next = await ensureDayPartitions({ db, now: new Date(now.getTime() + DAY) }, 7);
      expect(next.map((p) => p.name)).toContain(`clicks_d${dayRange(utcDayStart(now, 8)).day}`);
      expect(next).toHaveLength(PARTITIONED_TABLES.length);
    });

    test('a click for a day with no partition is stored, and moves into its partition when it is made', async () => {
      const db = await backend.create();
      const ahead = new Date(Date.now() + 30 * DAY);
      const future = ulid(ahead.getTime());
      const yesterday = ulid(Date.now() - DAY);
      const odd = 'not-a-ulid';
      await insertClick(db, future, ahead);
      await insertClick(db, yesterday, new Date(Date.now() - DAY));
      await insertClick(db, odd, new Date());
      expect(await partitionOf(db, future)).toBe('clicks_default');
      expect(await partitionOf(db, yesterday)).toBe('clicks_legacy');
      expect(await partitionOf(db, odd)).toBe('clicks_default');

      const made = await ensureDayPartitions({ db, now: ahead }, 0);
      const day = dayRange(utcDayStart(ahead)).day;
      expect(made.find((p) => p.table === 'clicks')).toEqual({ table: 'clicks', name: `clicks_d${day}`, moved: 1 });
      expect(await partitionOf(db, future)).toBe(`clicks_d${day}`);
      expect(await partitionOf(db, odd)).toBe('clicks_default');
      const [stored] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM clicks`);
      expect(stored!.n).toBe(3);
    });

    test('a click is found by its id in one index probe of one partition', async () => {
      const db = await backend.create();
      const now = new Date();
      await ensureDayPartitions({ db, now: new Date(now.getTime() + DAY) }, 3);
      const id = ulid(now.getTime() + 2 * DAY);
      await insertClick(db, id, new Date(now.getTime() + 2 * DAY));
      const day = dayRange(utcDayStart(now, 2)).day;
      for (const sql of [`SELECT * FROM clicks WHERE id = '${id}'`, `SELECT * FROM click_beacons WHERE click_id = '${id}'`]) {
        const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${sql}`)).map((r) => r['QUERY PLAN']).join('\n');
        expect(plan).not.toContain('Append');
        expect(plan).toMatch(new RegExp(`Index (Only )?Scan using \\S+ on \\S+_d${day}`));
      }
      // A prepared statement prunes when it runs: every other partition is removed from the plan.
      const generic = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM clicks WHERE id = $1`, [id]))
        .map((r) => r['QUERY PLAN']).join('\n');
      expect(generic.match(/Index (Only )?Scan/g)?.length).toBe(1);
      expect(generic).toContain(`clicks_d${day}`);
    });

    test("a day partition made ahead carries the parent's triggers, and an update there is queued for the mirror again", async () => {
      const db = await backend.create();
      const at = new Date(Date.now() + 3 * DAY);
      await ensureDayPartitions({ db, now: at }, 0);
      const day = dayRange(utcDayStart(at)).day;
      const triggers = await db.query<{ tgname: string }>(`SELECT tgname FROM pg_trigger WHERE tgrelid = $1::regclass ORDER BY tgname`, [`events_d${day}`]);
      expect(triggers.map((t) => t.tgname)).toEqual(['events_install_key', 'events_mirror_touch']);
      const id = ulid(at.getTime());
      await insertClick(db, id, at);
      const [inserted] = await db.query<{ txid: string }>(`SELECT _txid::text AS txid FROM clicks WHERE id = $1`, [id]);
      await db.query(`UPDATE clicks SET country = 'DE' WHERE id = $1`, [id]);
      const [updated] = await db.query<{ txid: string; part: string }>(`SELECT _txid::text AS txid, tableoid::regclass::text AS part FROM clicks WHERE id = $1`, [id]);
      expect(updated!.part).toBe(`clicks_d${day}`);
      expect(BigInt(updated!.txid)).toBeGreaterThan(BigInt(inserted!.txid));
    });

    test('the primary key still refuses a second click with the same id', async () => {
      const db = await backend.create();
      const id = ulid();
      await insertClick(db, id, new Date());
      await expect(insertClick(db, id, new Date())).rejects.toThrow();
      await db.query(`INSERT INTO clicks (id, org_id, created_at, next_hop_url) VALUES ($1, 'org_a', now(), 'x') ON CONFLICT (id) DO NOTHING`, [id]);
      const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM clicks WHERE id = $1`, [id]);
      expect(row!.n).toBe(1);
    });
  });
}
