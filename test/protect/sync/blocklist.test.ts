import '../../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createOrganization } from '../../../src/auth/accounts.service';
import { BLOCKLIST_DAYS, selectBlocklist } from '../../../src/protect/sync/blocklist.repo';
import { selectInvalidThreshold } from '../../../src/protect/settings.repo';
import { testMirror } from '../../analytics/mirror/mirror.helpers';
import { backends } from '../../support/db';
import { daysAgo, insertRiskyClick } from '../support';

setDefaultTimeout(120_000);

for (const backend of backends()) {
  describe(`selectBlocklist on ${backend.name}`, async () => {
    const db = await backend.create();
    // Copies only on catchUp(): what the list holds is what the catch-up brought over.
    const mirror = await testMirror({ db });
    /** The sync's read: the mirror caught up, the organization's threshold from Postgres. */
    const blocklist = async (orgId: string) => {
      await mirror.catchUp();
      return selectBlocklist(mirror, { orgId, since: daysAgo(BLOCKLIST_DAYS), threshold: await selectInvalidThreshold(db, orgId) });
    };

    test('happy: one entry per exclusion block with its worst score and last click, by score then recency', async () => {
      const orgId = await createOrganization(db, 'Blocklist');
      const [d1, d2, d3, d4] = [daysAgo(1), daysAgo(2), daysAgo(3), daysAgo(4)];
      await insertRiskyClick(db, { orgId, ip: '45.40.0.1', score: 60, at: d4 });
      await insertRiskyClick(db, { orgId, ip: '45.40.0.1', score: 90, at: d3 });
      await insertRiskyClick(db, { orgId, ip: '45.40.0.2', score: 90, at: d1 });
      await insertRiskyClick(db, { orgId, ip: '2a00:1450:4001:81c::1', score: 55, at: d2 });
      await insertRiskyClick(db, { orgId, ip: '2a00:1450:4001:81c:abcd::9', score: 75, at: d4 });
      await insertRiskyClick(db, { orgId, ip: '::ffff:45.40.0.3', score: 50, at: d1 });
      expect(await blocklist(orgId)).toEqual([
        { ip_block: '45.40.0.2', score: 90, last_seen: d1 },
        { ip_block: '45.40.0.1', score: 90, last_seen: d3 },
        { ip_block: '2a00:1450:4001:81c::/64', score: 75, last_seen: d2 },
        { ip_block: '45.40.0.3', score: 50, last_seen: d1 },
      ]);
    });

    test('only invalid clicks of the window: the organization’s threshold, no verified crawler, no private address', async () => {
      const orgId = await createOrganization(db, 'Threshold');
      await db.query('UPDATE organizations SET invalid_threshold = 70 WHERE id = $1', [orgId]);
      await insertRiskyClick(db, { orgId, ip: '45.41.0.1', score: 69 });
      await insertRiskyClick(db, { orgId, ip: '45.41.0.2', score: 70 });
      await insertRiskyClick(db, { orgId, ip: '45.41.0.3', score: 100, isBot: true });
      await insertRiskyClick(db, { orgId, ip: '192.168.1.20', score: 100 });
      await insertRiskyClick(db, { orgId, ip: 'fd00::1', score: 100 });
      await insertRiskyClick(db, { orgId, ip: '45.41.0.4', score: 100, at: daysAgo(BLOCKLIST_DAYS + 1) });
      expect((await blocklist(orgId)).map((entry) => entry.ip_block)).toEqual(['45.41.0.2']);
    });

    test('security: another organization’s clicks are never on the list', async () => {
      const alice = await createOrganization(db, 'Alice');
      const mallory = await createOrganization(db, 'Mallory');
      await insertRiskyClick(db, { orgId: mallory, ip: '45.42.0.66', score: 100 });
      await insertRiskyClick(db, { orgId: alice, ip: '45.42.0.1', score: 60 });
      expect((await blocklist(alice)).map((entry) => entry.ip_block)).toEqual(['45.42.0.1']);
      expect(await blocklist(await createOrganization(db, 'Empty'))).toEqual([]);
    });

    test('security: an address both organizations saw carries only this organization’s clicks, by its own threshold', async () => {
      const alice = await createOrganization(db, 'Alice shared');
      const mallory = await createOrganization(db, 'Mallory shared');
      await db.query('UPDATE organizations SET invalid_threshold = 10 WHERE id = $1', [mallory]);
      const [d1, d5] = [daysAgo(1), daysAgo(5)];
      await insertRiskyClick(db, { orgId: alice, ip: '45.43.0.1', score: 60, at: d5 });
      await insertRiskyClick(db, { orgId: mallory, ip: '45.43.0.1', score: 100, at: d1 });
      await insertRiskyClick(db, { orgId: mallory, ip: '45.43.0.2', score: 20, at: d1 });
      expect(await blocklist(alice)).toEqual([{ ip_block: '45.43.0.1', score: 60, last_seen: d5 }]);
      expect(await blocklist(mallory)).toEqual([
        { ip_block: '45.43.0.1', score: 100, last_seen: d1 },
        { ip_block: '45.43.0.2', score: 20, last_seen: d1 },
      ]);
    });

    test('a click stored after the last catch-up is on the list once the mirror catches up again', async () => {
      const orgId = await createOrganization(db, 'Late click');
      const earlier = daysAgo(1);
      await insertRiskyClick(db, { orgId, ip: '45.44.0.1', score: 60, at: earlier });
      expect((await blocklist(orgId)).map((entry) => entry.ip_block)).toEqual(['45.44.0.1']);
      const now = new Date();
      await insertRiskyClick(db, { orgId, ip: '45.44.0.2', score: 95, at: now });
      // Without a catch-up the mirror has not seen it: the reason the sync catches up first.
      const stale = await selectBlocklist(mirror, { orgId, since: daysAgo(BLOCKLIST_DAYS), threshold: 50 });
      expect(stale.map((entry) => entry.ip_block)).toEqual(['45.44.0.1']);
      expect(await blocklist(orgId)).toEqual([
        { ip_block: '45.44.0.2', score: 95, last_seen: now },
        { ip_block: '45.44.0.1', score: 60, last_seen: earlier },
      ]);
    });
  });
}
