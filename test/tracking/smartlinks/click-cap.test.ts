import { describe, expect, test } from 'bun:test';
import type { Db, Queryable } from '../../../src/db/db';
import { openPostgres } from '../../../src/db/postgres';
import { claimCapSlot } from '../../../src/tracking/smartlinks/click-cap.repo';
import { backends, createPostgres, onBeforeClose } from '../../support/db';
import { insertLink, orgWithKey } from '../../support/fixtures';

async function cappedLink(db: Db, cap: number | null) {
  const { orgId } = await orgWithKey(db);
  const { linkId } = await insertLink(db, orgId, { kind: 'smart' });
  await db.query('UPDATE links SET click_cap = $2 WHERE id = $1', [linkId, cap]);
  return linkId;
}

const capUsed = async (db: Queryable, linkId: string) =>
  (await db.query<{ cap_used: number }>('SELECT cap_used FROM links WHERE id = $1', [linkId]))[0]!.cap_used;

/** Fires every claim at once, alternating between the connections given; resolves to how many won. */
async function claimAtOnce(nodes: Queryable[], linkId: string, claims: number): Promise<number> {
  const results = await Promise.all(Array.from({ length: claims }, (_, i) => claimCapSlot(nodes[i % nodes.length]!, linkId)));
  return results.filter(Boolean).length;
}

for (const backend of backends()) {
  describe(`click cap on ${backend.name}`, async () => {
    const db = await backend.create();

    describe('happy', () => {
      test('with cap N and 4N concurrent claims exactly N succeed', async () => {
        for (const cap of [1, 7, 25]) {
          const linkId = await cappedLink(db, cap);
          expect(await claimAtOnce([db], linkId, 4 * cap)).toBe(cap);
          expect(await capUsed(db, linkId)).toBe(cap);
          expect(await claimCapSlot(db, linkId)).toBe(false);
        }
      });

      test('raising the cap allows more visits; lowering it below what was used closes the link at once', async () => {
        const linkId = await cappedLink(db, 3);
        expect(await claimAtOnce([db], linkId, 5)).toBe(3);
        await db.query('UPDATE links SET click_cap = 5 WHERE id = $1', [linkId]);
        expect(await claimAtOnce([db], linkId, 5)).toBe(2);
        await db.query('UPDATE links SET click_cap = 2 WHERE id = $1', [linkId]);
        expect(await claimCapSlot(db, linkId)).toBe(false);
        expect(await capUsed(db, linkId)).toBe(5);
      });

      test('cap_used never resets: removing the cap and setting it again counts the earlier visits', async () => {
        const linkId = await cappedLink(db, 2);
        expect(await claimAtOnce([db], linkId, 2)).toBe(2);
        await db.query('UPDATE links SET click_cap = NULL WHERE id = $1', [linkId]);
        await db.query('UPDATE links SET click_cap = 3 WHERE id = $1', [linkId]);
        expect(await claimAtOnce([db], linkId, 3)).toBe(1);
      });
    });

    describe('error', () => {
      test('a link without a cap or an unknown link gives no slot and changes nothing', async () => {
        const uncapped = await cappedLink(db, null);
        expect(await claimCapSlot(db, uncapped)).toBe(false);
        expect(await capUsed(db, uncapped)).toBe(0);
        expect(await claimCapSlot(db, 'no-such-link')).toBe(false);
      });

      test('a cap of zero never gives a slot', async () => {
        const linkId = await cappedLink(db, 0);
        expect(await claimAtOnce([db], linkId, 4)).toBe(0);
        expect(await capUsed(db, linkId)).toBe(0);
      });
    });

    describe('security', () => {
      test("one link's claims never spend another link's cap", async () => {
        const [a, b] = [await cappedLink(db, 2), await cappedLink(db, 2)];
        expect(await claimAtOnce([db], a, 8)).toBe(2);
        expect(await capUsed(db, b)).toBe(0);
        expect(await claimAtOnce([db], b, 8)).toBe(2);
      });

      test('a link id holding SQL is only ever a value', async () => {
        const linkId = await cappedLink(db, 1);
        expect(await claimCapSlot(db, `${linkId}' OR '1'='1`)).toBe(false);
        expect(await capUsed(db, linkId)).toBe(0);
      });
    });
  });
}

if (process.env.DATABASE_URL) {
  describe('click cap across two nodes on postgres', async () => {
    const { db: first, url } = await createPostgres();
    const second = openPostgres(url, { max: 5 });
    onBeforeClose(first, () => second.close());

    test('two pools sharing the database: with cap N and 4N concurrent claims exactly N succeed', async () => {
      for (const cap of [1, 10, 40]) {
        const linkId = await cappedLink(first, cap);
        expect(await claimAtOnce([first, second], linkId, 4 * cap)).toBe(cap);
        expect(await capUsed(second, linkId)).toBe(cap);
      }
    });
  });
}
