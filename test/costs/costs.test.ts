import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { DAY_ERROR } from '../../src/shared/timestamp';
import { body, poster, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign, orgWithKey } from '../support/fixtures';

for (const backend of backends()) {
  describe(`cost import on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const post = poster(t, '/api/v1/costs');
    const costs = (orgId: string) =>
      db.query<Record<string, any>>("SELECT campaign_id, to_char(day, 'YYYY-MM-DD') AS day, spend, currency, impressions FROM costs WHERE org_id = $1 ORDER BY campaign_id, day", [orgId]);

    test('upserts by campaign id or external id and answers {ok, upserted}', async () => {
      const org = await orgWithKey(db);
      const a = await insertCampaign(db, org.orgId);
      const b = await insertCampaign(db, org.orgId, { externalId: 'gads-123' });
      const res = await post(org.auth, {
        rows: [
          { campaign_id: a.campaignId, day: '2026-01-01', spend: 10.25, impressions: 1000 },
          { campaign_external_id: 'gads-123', day: '2026-01-01', spend: 3, currency: 'eur' },
        ],
      });
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({ ok: true, upserted: 2 });
      const stored = await costs(org.orgId);
      expect(stored).toContainEqual({ campaign_id: a.campaignId, day: '2026-01-01', spend: 10.25, currency: 'USD', impressions: 1000 });
      expect(stored).toContainEqual({ campaign_id: b.campaignId, day: '2026-01-01', spend: 3, currency: 'EUR', impressions: null });
    });

    test('a repeat replaces the campaign-day instead of adding one', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      await post(org.auth, { rows: [{ campaign_id: campaignId, day: '2026-02-01', spend: 5, impressions: 10 }] });
      const again = await body(await post(org.auth, { rows: [{ campaign_id: campaignId, day: '2026-02-01', spend: 7.5 }] }));
      expect(again).toEqual({ ok: true, upserted: 1 });
      expect(await costs(org.orgId)).toEqual([{ campaign_id: campaignId, day: '2026-02-01', spend: 7.5, currency: 'USD', impressions: null }]);
    });

    test('the same campaign-day twice in one batch: the later row wins, counted once', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId, { externalId: 'dup-ext' });
      const res = await body(
        await post(org.auth, {
          rows: [
            { campaign_id: campaignId, day: '2026-03-01', spend: 1 },
            { campaign_external_id: 'dup-ext', day: '2026-03-01', spend: 2 },
          ],
        }),
      );
      expect(res).toEqual({ ok: true, upserted: 1 });
      expect((await costs(org.orgId))[0]!.spend).toBe(2);
    });

    test("rows naming unknown campaigns, or another organization's, are skipped", async () => {
      const org = await orgWithKey(db);
      const other = await orgWithKey(db, 'Other');
      const mine = await insertCampaign(db, org.orgId);
      const theirs = await insertCampaign(db, other.orgId, { externalId: 'their-ext' });
      const res = await body(
        await post(org.auth, {
          rows: [
            { campaign_id: mine.campaignId, day: '2026-04-01', spend: 1 },
            { campaign_id: 'no-such-campaign', day: '2026-04-01', spend: 1 },
            { campaign_id: theirs.campaignId, day: '2026-04-01', spend: 1 },
            { campaign_external_id: 'their-ext', day: '2026-04-01', spend: 1 },
          ],
        }),
      );
      expect(res).toEqual({ ok: true, upserted: 1 });
      expect(await costs(org.orgId)).toHaveLength(1);
      expect(await costs(other.orgId)).toHaveLength(0);
    });

    test('5000 rows in one call', async () => {
      const org = await orgWithKey(db);
      const campaigns = [await insertCampaign(db, org.orgId), await insertCampaign(db, org.orgId)];
      const start = Date.UTC(2010, 0, 1);
      const rows = Array.from({ length: 5000 }, (_, i) => ({
        campaign_id: campaigns[i % 2]!.campaignId,
        day: new Date(start + Math.floor(i / 2) * 86_400_000).toISOString().slice(0, 10),
        spend: i / 100,
      }));
      const res = await post(org.auth, { rows });
      expect(await body(res)).toEqual({ ok: true, upserted: 5000 });
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM costs WHERE org_id = $1', [org.orgId]))[0]!.n).toBe(5000);
    });

    test('one invalid row names itself and nothing of the batch is written', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      const rows = [0, 1, 2, 3].map((i) => ({ campaign_id: campaignId, day: `2026-05-0${i + 1}`, spend: 1 }));
      rows[3]!.day = '2025-02-30';
      const res = await post(org.auth, { rows });
      expect(res.status).toBe(400);
      expect((await body(res)).error.fieldErrors).toEqual({ 'rows.3.day': [DAY_ERROR] });
      expect(await costs(org.orgId)).toEqual([]);
    });

    test.each([
      [{ rows: [] }, 'rows'],
      [{}, 'rows'],
      [{ rows: [{ campaign_id: 'c', day: '2026/01/01', spend: 1 }] }, 'rows.0.day'],
      [{ rows: [{ campaign_id: 'c', day: '2026-01-01', spend: -1 }] }, 'rows.0.spend'],
      [{ rows: [{ campaign_id: 'c', day: '2026-01-01' }] }, 'rows.0.spend'],
      [{ rows: [{ campaign_id: 'c', spend: 1 }] }, 'rows.0.day'],
      [{ rows: [{ campaign_id: 'c', day: '2026-01-01', spend: 1, currency: 'EURO' }] }, 'rows.0.currency'],
      [{ rows: [{ campaign_id: 'c', day: '2026-01-01', spend: 1, impressions: 1.5 }] }, 'rows.0.impressions'],
      [{ rows: [{ campaign_id: 'c', day: '2026-01-01', spend: 1, impressions: -1 }] }, 'rows.0.impressions'],
      [{ rows: [{ campaign_id: 'c', day: '2026-01-01', spend: 1, extra: 1 }] }, 'rows.0.extra'],
      [{ rows: [{ campaign_id: 'c', day: '2026-01-01', spend: 1 }, { day: '2026-01-01', spend: 1 }] }, 'rows.1.campaign_id'],
    ])('400 for %j names %s', async (input, field) => {
      const org = await orgWithKey(db);
      const res = await post(org.auth, input);
      expect(res.status).toBe(400);
      expect(Object.keys((await body(res)).error.fieldErrors)).toContain(field);
    });

    test('more than 5000 rows is a 400 and writes nothing', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      const rows = Array.from({ length: 5001 }, () => ({ campaign_id: campaignId, day: '2026-01-01', spend: 1 }));
      const res = await post(org.auth, { rows });
      expect(res.status).toBe(400);
      expect((await body(res)).error.fieldErrors.rows).toBeArray();
      expect(await costs(org.orgId)).toEqual([]);
    });

    test('the import is audited with the key that made it', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      await post(org.auth, { rows: [{ campaign_id: campaignId, day: '2026-06-01', spend: 1 }, { campaign_id: 'unknown', day: '2026-06-01', spend: 1 }] });
      const audits = await db.query<Record<string, any>>("SELECT action, api_key_id, detail FROM audit_log WHERE org_id = $1 AND entity = 'cost'", [org.orgId]);
      expect(audits).toEqual([{ action: 'upsert', api_key_id: org.keyId, detail: { rows: 2, upserted: 1, skipped: 1 } }]);
    });

    test('401 without a key or with a revoked one; 405 on other methods', async () => {
      expect((await post({}, { rows: [{ campaign_id: 'c', day: '2026-01-01', spend: 1 }] })).status).toBe(401);
      const org = await orgWithKey(db);
      await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [org.keyId]);
      expect((await post(org.auth, { rows: [{ campaign_id: 'c', day: '2026-01-01', spend: 1 }] })).status).toBe(401);
      expect((await t.request('/api/v1/costs', { method: 'GET', headers: org.auth })).status).toBe(405);
    });
  });
}
