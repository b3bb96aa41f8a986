import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { HOT_LINKS_SQL } from '../../src/edge/hot-links.repo';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { planNodes } from '../support/plans';

/*
 * Every edge worker asks for the hot links every few seconds. Counting a day of one
 * organization's clicks must go through clicks_org_created_idx, never read the whole table,
 * before statistics exist and after.
 */
for (const backend of backends()) {
  describe(`hot links plan on ${backend.name}`, async () => {
    const db = await backend.create();
    const busy = await orgWithKey(db, 'Busy');
    const edge = await orgWithKey(db, 'Edge');
    const { linkId } = await insertLink(db, edge.orgId);
    // 100,000 clicks: most of another organization, and a month of this one's, a day of it recent.
    await db.query(
      `INSERT INTO clicks (id, org_id, link_id, created_at, next_hop_url)
       SELECT 'click' || lpad(i::text, 8, '0'), CASE WHEN i % 10 = 0 THEN $1 ELSE $2 END, $3,
              now() - (i % 30) * interval '1 day' - interval '1 minute', 'https://shop.example.com/'
         FROM generate_series(1, 100000) AS i`,
      [edge.orgId, busy.orgId, linkId],
    );
    const params = [edge.orgId, new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString(), true, 100];

    const clickScans = async () => (await planNodes(db, HOT_LINKS_SQL, params)).filter((node) => node['Relation Name'] === 'clicks');

    test('clicks are read through clicks_org_created_idx, with and without statistics', async () => {
      for (const stage of ['no statistics', 'analyzed']) {
        if (stage === 'analyzed') await db.query('ANALYZE clicks');
        const scans = await clickScans();
        expect(scans.length).toBeGreaterThanOrEqual(1);
        expect(scans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
        const indexes = (await planNodes(db, HOT_LINKS_SQL, params)).map((node) => node['Index Name']).filter(Boolean);
        expect(indexes).toContain('clicks_org_created_idx');
      }
    });
  });
}
