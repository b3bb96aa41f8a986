import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { journalDirOf } from '../../src/tracking/pipeline/click-pipeline';
import { newId } from '../../src/shared/ids';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign, insertLink, orgWithKey } from '../support/fixtures';
import { eventually } from '../support/wait';
import { ingest, IPHONE } from './support';

/** A visitor an ingestion step lets attribute. */
const VISITOR = { ip: '8.8.8.8', user_agent: IPHONE };

for (const backend of backends()) {
  describe(`POST /api/ingest/clicks into the click pipeline on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const idsOf = async (orgId: string) => {
      await t.services.clickPipeline.flush();
      return (await db.query<{ id: string }>('SELECT id FROM clicks WHERE org_id = $1 ORDER BY id', [orgId])).map((row) => row.id);
    };

    test('the same batch twice stores each click once; a click id repeated in one batch is rejected', async () => {
      const org = await orgWithKey(db);
      const { slug } = await insertLink(db, org.orgId);
      const batch = ['edge-idem-1', 'edge-idem-2', 'edge-idem-3'].map((click_id) => ({ slug, click_id, ...VISITOR }));
      expect(await body(await ingest(t, batch))).toEqual({ accepted: 3, rejected: [] });
      await t.services.clickPipeline.flush();
      // The retry of a batch whose answer was lost: journaled again, skipped by the insert.
      expect(await body(await ingest(t, batch))).toEqual({ accepted: 3, rejected: [] });
      expect(await idsOf(org.orgId)).toEqual(['edge-idem-1', 'edge-idem-2', 'edge-idem-3']);

      const repeated = await body(await ingest(t, [{ slug, click_id: 'edge-idem-4' }, { slug }, { slug, click_id: 'edge-idem-4', ...VISITOR }]));
      expect(repeated).toEqual({ accepted: 2, rejected: [{ index: 2, error: 'click_id: repeats row 0 of this batch' }] });
      const ids = await idsOf(org.orgId);
      expect(ids).toHaveLength(5);
      expect(ids.filter((id) => id === 'edge-idem-4')).toHaveLength(1);
    });

    test('an answered row is in the journal, and reaches Postgres with no flush', async () => {
      const org = await orgWithKey(db);
      const { slug } = await insertLink(db, org.orgId);
      const clickIds = Array.from({ length: 5 }, () => newId());
      expect(await body(await ingest(t, clickIds.map((click_id) => ({ slug, click_id, ...VISITOR }))))).toEqual({ accepted: 5, rejected: [] });
      const journal = journalDirOf(t.config.dataDir);
      const journaled = readdirSync(journal)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => readFileSync(join(journal, name), 'latin1'))
        .join('');
      for (const id of clickIds) expect(journaled).toContain(`"id":"${id}"`);
      const stored = await eventually(async () => {
        const rows = await db.query<{ id: string }>('SELECT id FROM clicks WHERE org_id = $1', [org.orgId]);
        return rows.length === clickIds.length && rows;
      });
      expect(stored.map((row) => row.id).sort()).toEqual([...clickIds].sort());
    });

    test("a conversion naming an ingested click id is matched to the link's campaign", async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      const { slug } = await insertLink(db, org.orgId, { campaignId });
      expect(await body(await ingest(t, [{ slug, click_id: 'edge-conv-1', ...VISITOR }]))).toEqual({ accepted: 1, rejected: [] });
      await t.services.clickPipeline.flush();
      const res = await t.request('/api/v1/conversions', { method: 'POST', headers: org.auth, json: { click_id: 'edge-conv-1', event: 'purchase', value: 9.5, currency: 'EUR' } });
      expect(res.status).toBe(201);
      const result = await body(res);
      expect(result.matched).toBe(true);
      const [conversion] = await db.query<Record<string, unknown>>('SELECT click_id, campaign_id, matched FROM conversions WHERE id = $1', [result.id]);
      expect(conversion).toEqual({ click_id: 'edge-conv-1', campaign_id: campaignId, matched: true });
    });

    test("another organization's conversion never matches an ingested click", async () => {
      const owner = await orgWithKey(db);
      const other = await orgWithKey(db);
      const { slug } = await insertLink(db, owner.orgId);
      await ingest(t, [{ slug, click_id: 'edge-conv-2', ...VISITOR }]);
      await t.services.clickPipeline.flush();
      const result = await body(await t.request('/api/v1/conversions', { method: 'POST', headers: other.auth, json: { click_id: 'edge-conv-2' } }));
      expect(result.matched).toBe(false);
    });

    test('a cached link costs no query: one lookup for a batch, none for the next', async () => {
      const org = await orgWithKey(db);
      const { slug } = await insertLink(db, org.orgId);
      const lookups = () => t.services.linkCache.stats().databaseLookups;
      const start = lookups();
      expect((await body(await ingest(t, Array.from({ length: 20 }, () => ({ slug }))))).accepted).toBe(20);
      expect(lookups()).toBe(start + 1);
      expect((await body(await ingest(t, Array.from({ length: 20 }, () => ({ slug }))))).accepted).toBe(20);
      expect(lookups()).toBe(start + 1);
    });

    test('a database that cannot answer a link lookup fails the call with 503, journaling nothing', async () => {
      const org = await orgWithKey(db);
      const { slug } = await insertLink(db, org.orgId);
      const cached = await insertLink(db, org.orgId);
      await ingest(t, [{ slug: cached.slug }]);
      const query = db.query;
      db.query = () => Promise.reject(new Error('database unavailable'));
      let res: Response;
      try {
        res = await ingest(t, [{ slug: cached.slug, click_id: 'edge-down-1' }, { slug, click_id: 'edge-down-2' }]);
      } finally {
        db.query = query;
      }
      expect(res.status).toBe(503);
      expect(await body(res)).toEqual({ error: 'service unavailable' });
      expect(await idsOf(org.orgId)).toHaveLength(1);
    });
  });
}
