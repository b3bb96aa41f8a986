import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { LATE_MATCH_BY_CLICK_ID, LATE_MATCH_BY_GCLID } from '../../src/conversions/conversions.repo';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { planNodes } from '../support/plans';

/*
 * The late matcher runs every two seconds on every node. Whatever the planner believes about
 * how many conversions are waiting, it must reach them through conversions_unmatched_idx and
 * never read the whole table: on a database holding millions of matched conversions a full
 * scan costs seconds per pass.
 */
for (const backend of backends()) {
  describe(`late matcher plans on ${backend.name}`, async () => {
    const db = await backend.create();
    const { orgId } = await orgWithKey(db);
    // 100,000 conversions, all matched, and no statistics: PGlite runs no autovacuum, and on
    // Postgres a table that grew in a burst waits for it. The planner then guesses a large share
    // of them are waiting, which is when a plan could read the whole table.
    await db.query(
      `INSERT INTO conversions (id, org_id, event_name, source, click_id, gclid, matched)
       SELECT 'conv' || lpad(i::text, 8, '0'), $1, 'purchase', 'api', 'click' || i, 'gclid' || i, true
         FROM generate_series(1, 100000) AS i`,
      [orgId],
    );

    for (const [name, statement] of [
      ['by click id', LATE_MATCH_BY_CLICK_ID],
      ['by gclid', LATE_MATCH_BY_GCLID],
    ] as const) {
      test(`${name}: no sequential scan of conversions, even on a table with no statistics`, async () => {
        const nodes = await planNodes(db, statement, [new Date(Date.now() - 15 * 60_000)]);
        const onConversions = nodes.filter((node) => node['Relation Name'] === 'conversions');
        // The updated row and the candidate: both read, neither by a sequential scan.
        expect(onConversions.length).toBeGreaterThanOrEqual(2);
        expect(onConversions.map((node) => node['Node Type'])).not.toContain('Seq Scan');
      });
    }
  });
}
