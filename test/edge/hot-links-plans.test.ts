import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { HOT_LINKS_SQL } from '../../src/edge/hot-links.repo';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { parentIndexName, planNodes, type PlanNode } from '../support/plans';

/*
 * Every edge worker asks for the hot links every few seconds. Counting a day of one
 * organization's clicks must go through an (org_id, created_at) index, never read the whole
 * table, and once the table is vacuumed (autovacuum does it as clicks are inserted) it must be
 * an index-only scan of clicks_org_created_link_idx (in each day partition read), which reads no
 * click row.
 */
const COVERING = 'clicks_org_created_link_idx';
const BY_ORG_AND_TIME = [COVERING];

for (const backend of backends()) {
  describe(`hot links plan on ${backend.name}`, async () => {
    const db = await backend.create();
    const busy = await orgWithKey(db, 'Busy');
    const edge = await orgWithKey(db, 'Edge');
    const links = await Promise.all(Array.from({ length: 20 }, () => insertLink(db, edge.orgId)));
    // 100,000 clicks: most of another organization, and a month of this one's over 20 links, a day of it recent.
    // Each has an address and a household hash, as every stored click with an address does:
    // without statistics a planner weighs indexes by their size, and these columns are in the
    // other indexes that start with org_id.
    await db.query(
      `INSERT INTO clicks (id, org_id, link_id, created_at, next_hop_url, ip, household_hash)
       SELECT 'click' || lpad(i::text, 8, '0'), CASE WHEN i % 10 = 0 THEN $1 ELSE $2 END, ($3::text[])[1 + i / 10 % 20],
              now() - (i % 30) * interval '1 day' - interval '1 minute', 'https://shop.example.com/',
              '203.0.' || (i / 250 % 250) || '.' || (i % 250), encode(sha256(('household' || i / 4)::bytea), 'hex')
         FROM generate_series(1, 100000) AS i`,
      [edge.orgId, busy.orgId, links.map((link) => link.linkId)],
    );
    const params = [edge.orgId, new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString(), true, 100];
    const tableOfIndex = async (index: string) =>
      (await db.query<{ name: string }>(`SELECT indrelid::regclass::text AS name FROM pg_index WHERE indexrelid = $1::regclass`, [index]))[0]?.name ?? null;
    /** The plan nodes that read clicks: a scan, or a bitmap heap scan over its index scan. */
    const clickReads = async (analyze = false): Promise<PlanNode[]> => {
      const nodes = await planNodes(db, HOT_LINKS_SQL, params, { analyze });
      // clicks is partitioned by day (sql/0119): the plan reads each partition, and the empty ones
      // (a scan of nothing, whatever its kind) are left out; a partition's index is named by its parent's.
      const holding = new Set((await db.query<{ part: string }>(`SELECT DISTINCT tableoid::regclass::text AS part FROM clicks`)).map((r) => r.part));
      const reads: PlanNode[] = [];
      for (const node of nodes) {
        const index = node['Index Name'] ? String(node['Index Name']) : null;
        const relation = node['Relation Name'] ? String(node['Relation Name']) : index ? await tableOfIndex(index) : null;
        if (relation === null || !holding.has(relation)) continue;
        reads.push(index ? { ...node, 'Index Name': await parentIndexName(db, index) } : node);
      }
      return reads;
    };

    test('clicks are read through an (org_id, created_at) index, with and without statistics', async () => {
      for (const stage of ['no statistics', 'analyzed']) {
        if (stage === 'analyzed') await db.query('ANALYZE clicks');
        const reads = await clickReads();
        expect(reads.length).toBeGreaterThanOrEqual(1);
        expect(reads.map((node) => node['Node Type'])).not.toContain('Seq Scan');
        // One index per partition the plan reads (the legacy and the default one hold these clicks).
        const indexes = reads.map((node) => node['Index Name']).filter(Boolean);
        expect(indexes.length).toBeGreaterThanOrEqual(1);
        for (const index of indexes) expect(BY_ORG_AND_TIME).toContain(index as string);
      }
    });

    test('once vacuumed, the count is an index-only scan of the covering index', async () => {
      await db.query('VACUUM ANALYZE clicks');
      const reads = await clickReads(true);
      expect(reads.length).toBeGreaterThanOrEqual(1);
      for (const node of reads) expect([node['Node Type'], node['Index Name']]).toEqual(['Index Only Scan', COVERING]);
      const sum = (key: string) => reads.reduce((total, node) => total + Number(node[key]), 0);
      // The day of the organization's clicks (every tenth click, a thirtieth of them recent), from the index alone.
      // A page another session's snapshot keeps from being all-visible may still be read.
      expect(sum('Actual Rows')).toBe(3333);
      expect(sum('Heap Fetches')).toBeLessThan(3333 / 100);
    });
  });
}
