import { describe, expect, test } from 'bun:test';
import { createPostgres } from '../../support/db';
import { body, testApp, TEST_TRACKING_URL } from '../../support/app';
import { orgWithKey } from '../../support/fixtures';
import { openPostgres } from '../../../src/db/postgres';

/** Two nodes on one Postgres database (PGlite has one node only), each with its own pool, caches and pipeline. */
if (process.env.DATABASE_URL) describe('a click cap across two nodes sharing Postgres', () => {
  test('with cap N and concurrent visits on both nodes, exactly N answers are not 410', async () => {
    const { db, url } = await createPostgres();
    const second = openPostgres(url, { max: 5, idleTimeoutSeconds: 5 });
    const nodeA = await testApp(db, {}, { mirror: false, workers: false });
    const nodeB = await testApp(second, {}, { mirror: false, workers: false });
    try {
      const org = await orgWithKey(db);
      const cap = 25;
      const link = await body(await nodeA.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { kind: 'smart', destination: 'https://shop.example.com/', click_cap: cap } }));
      const visit = (node: typeof nodeA, i: number) =>
        node.request(`${TEST_TRACKING_URL}/l/${link.slug}`, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)', 'x-forwarded-for': `198.51.100.${i % 250}` } });
      const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => visit(i % 2 === 0 ? nodeA : nodeB, i)));
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status !== 410)).toHaveLength(cap);
      expect(statuses.filter((status) => status === 302)).toHaveLength(cap);
      await nodeA.services.clickPipeline.flush();
      await nodeB.services.clickPipeline.flush();
      const stored = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE link_id = $1', [link.id]);
      expect(stored[0]!.n).toBe(cap);
    } finally {
      await nodeB.services.stop();
      await second.close();
    }
  });
});
