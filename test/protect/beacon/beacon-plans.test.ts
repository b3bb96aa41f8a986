import '../../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { DELETE_PENDING_BEACONS, LANDED_PENDING_BEACONS } from '../../../src/protect/beacon/beacon.repo';
import { backends } from '../../support/db';
import { orgWithKey } from '../../support/fixtures';
import { planNodes, readsTable } from '../../support/plans';

/*
 * The pending pass runs every two seconds on every node, while click_beacons holds a row for
 * every click a landing page reported on and almost none are pending. Whatever the planner
 * believes, it must reach the pending rows through their partial index and never read the table
 * (nor any of its day partitions).
 */
for (const backend of backends()) {
  describe(`pending beacon plans on ${backend.name}`, async () => {
    const db = await backend.create();
    const { orgId } = await orgWithKey(db);
    // 100,000 applied beacons with their clicks and no statistics (PGlite runs no autovacuum).
    await db.query(
      `INSERT INTO clicks (id, org_id, created_at, next_hop_url, ip)
       SELECT 'click' || lpad(i::text, 8, '0'), $1, now(), 'https://shop.example.com/', '198.51.100.' || (i % 250)
         FROM generate_series(1, 100000) AS i`,
      [orgId],
    );
    await db.query(
      `INSERT INTO click_beacons (click_id, org_id, ip, fingerprint, scroll, first_at, updated_at)
       SELECT 'click' || lpad(i::text, 8, '0'), $1, '198.51.100.' || (i % 250), 'fp' || (i % 5000), 50, now(), now()
         FROM generate_series(1, 100000) AS i`,
      [orgId],
    );

    for (const [name, statement, params] of [
      ['landed pending beacons', LANDED_PENDING_BEACONS, [500]],
      ['expired pending beacons', DELETE_PENDING_BEACONS, [new Date(Date.now() - 15 * 60_000).toISOString()]],
    ] as const) {
      test(`${name}: no sequential scan of click_beacons or clicks`, async () => {
        const nodes = await planNodes(db, statement, [...params]);
        // Both tables are partitioned by day (sql/0119): a scan names the partition it reads.
        const scans = nodes.filter((node) => readsTable(node, 'click_beacons') || readsTable(node, 'clicks'));
        expect(scans.length).toBeGreaterThanOrEqual(1);
        expect(scans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
      });
    }
  });
}
