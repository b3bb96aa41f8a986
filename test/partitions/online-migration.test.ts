import { describe, expect, test } from 'bun:test';
import type { Db } from '../../src/db/db';
import { migrate, readMigrations } from '../../src/db/migrate';
import { openPglite } from '../../src/db/pglite';
import { openPostgres } from '../../src/db/postgres';
import { dayRange, utcDayStart } from '../../src/partitions/day-range';
import { ensureDayPartitions } from '../../src/partitions/partitions.service';
import { newId } from '../../src/shared/ids';
import { createPostgres, onBeforeClose } from '../support/db';

/**
 * The migration to day partitions (sql/0119) on a database that already holds a million clicks,
 * made with generate_series over the last ten days, while a node goes on writing and reading clicks.
 */
const CLICKS = 1_000_000;
const PARTITIONS = 118;
const DAYS = 10;

const before = readMigrations().filter((m) => m.version < PARTITIONS);

async function seed(db: Db) {
  const days = Array.from({ length: DAYS }, (_, n) => utcDayStart(new Date(), -n));
  const prefixes = days.map((start) => dayRange(start).lower);
  const starts = days.map((start) => new Date(start).toISOString());
  // A ULID of day g % 10 (its time prefix, then the serial as the rest), the click at that day's start plus g ms.
  await db.query(
    `INSERT INTO clicks (id, org_id, campaign_id, created_at, next_hop_url, ip)
     SELECT ($1::text[])[1 + g % ${DAYS}] || lpad(g::text, 16, '0'), 'org_' || (g % 7), 'cmp_' || (g % 13),
            ($2::timestamptz[])[1 + g % ${DAYS}] + g * interval '1 millisecond', 'https://example.com/', '10.0.' || (g % 250) || '.1'
       FROM generate_series(1, ${CLICKS}) AS g`,
    [prefixes, starts],
  );
  // A click from a clock far ahead, and one whose id is no ULID: both must survive the migration too.
  await db.query(`INSERT INTO clicks (id, org_id, created_at, next_hop_url) VALUES ($1, 'org_x', now(), 'x'), ('legacy-id-1', 'org_x', now(), 'x')`, [
    dayRange(utcDayStart(new Date(), 40)).lower + '0000000000000000',
  ]);
  await db.query(`INSERT INTO click_beacons (click_id, org_id, first_at, updated_at) SELECT id, org_id, now(), now() FROM clicks WHERE org_id = 'org_1' LIMIT 1000`);
  await db.query(`ANALYZE clicks`);
}

async function fingerprint(db: Db) {
  const [row] = await db.query<{ n: number; orgs: number; ids: string; days: string }>(
    `SELECT count(*)::int AS n, count(DISTINCT org_id)::int AS orgs, sum(hashtext(id))::text AS ids,
            sum(hashtext(id || created_at::text || coalesce(ip, '')))::text AS days
       FROM clicks`,
  );
  return row!;
}

/** A node serving meanwhile: writes a click and reads one by id in a loop until told to stop. */
function serveMeanwhile(db: Db) {
  const written: string[] = [];
  const failures: unknown[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const id = newId();
      try {
        await db.query(`INSERT INTO clicks (id, org_id, created_at, next_hop_url) VALUES ($1, 'org_live', now(), 'x') ON CONFLICT (id) DO NOTHING`, [id]);
        const found = await db.query<{ id: string }>(`SELECT id FROM clicks WHERE id = $1`, [id]);
        if (found.length !== 1) failures.push(new Error(`click ${id} not found after its insert`));
        written.push(id);
      } catch (error) {
        failures.push(error);
      }
      await Bun.sleep(5);
    }
  })();
  return {
    written,
    failures,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

const stores: { name: string; open: () => Promise<{ db: Db; node: Db }> }[] = [
  {
    name: 'pglite',
    async open() {
      const db = await openPglite();
      onBeforeClose(db, () => db.close());
      // The embedded store has one connection: the node's statements wait for the migration's.
      return { db, node: db };
    },
  },
];
if (process.env.DATABASE_URL) {
  stores.push({
    name: 'postgres',
    async open() {
      const { db, url } = await createPostgres({ migrated: false });
      const node = openPostgres(url, { max: 2, idleTimeoutSeconds: 5 });
      onBeforeClose(db, () => node.close());
      return { db, node };
    },
  });
}

for (const store of stores) {
  describe(`migrating a populated database to day partitions (${store.name})`, () => {
    test('keeps every click, moves nothing it need not, and the node writes and reads meanwhile', async () => {
      const { db, node } = await store.open();
      await migrate(db, before);
      await seed(db);
      const seeded = await fingerprint(db);
      expect(seeded.n).toBe(CLICKS + 2);

      const serving = serveMeanwhile(node);
      while (serving.written.length < 3) await Bun.sleep(5);
      expect(await migrate(db)).toContain('0119_day_partitions.sql');
      const afterMigration = serving.written.length;
      while (serving.written.length < afterMigration + 3) await Bun.sleep(5);
      await serving.stop();
      expect(serving.failures).toEqual([]);

      const live = await db.query<{ id: string }>(`SELECT id FROM clicks WHERE org_id = 'org_live' ORDER BY id`);
      expect(live.map((r) => r.id)).toEqual([...serving.written].sort());
      await db.query(`DELETE FROM clicks WHERE org_id = 'org_live'`);
      expect(await fingerprint(db)).toEqual(seeded);

      const placed = await db.query<{ part: string; n: number }>(
        `SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM clicks GROUP BY 1 ORDER BY 1`,
      );
      expect(placed).toEqual([
        { part: 'clicks_default', n: 2 },
        { part: 'clicks_legacy', n: CLICKS },
      ]);
      const [beacons] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM click_beacons_legacy`);
      expect(beacons!.n).toBe(1000);

      // Made ahead after the migration, the new days take new rows; the far-ahead click moves in when its day is made.
      const made = await ensureDayPartitions({ db, now: new Date(Date.now() + 40 * 86_400_000) }, 0);
      expect(made.find((p) => p.table === 'clicks')?.moved).toBe(1);
      const [probe] = await db.query<{ id: string }>(`SELECT id FROM clicks WHERE org_id = 'org_3' ORDER BY id DESC LIMIT 1`);
      const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) SELECT * FROM clicks WHERE id = '${probe!.id}'`))
        .map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).not.toContain('Append');
      expect(plan).toMatch(/Index (Only )?Scan using \S+ on clicks_legacy/);
    }, 600_000);
  });
}
