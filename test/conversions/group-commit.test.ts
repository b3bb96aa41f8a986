import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { body, poster, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, orgWithKey } from '../support/fixtures';

/*
 * Conversions that name a stored click are written by group commit: concurrent requests share
 * one statement. These tests send them concurrently and check that each request still gets
 * its own conversion, audit row and postbacks, exactly as when sent one by one.
 */
for (const backend of backends()) {
  describe(`conversions written together on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const post = poster(t, '/api/v1/conversions');
    const destination = async (auth: Record<string, string>, json: Record<string, unknown>) => {
      const res = await t.request('/api/v1/postback-destinations', { method: 'POST', headers: auth, json });
      expect(res.status).toBe(201);
      return body(res);
    };

    test('forty concurrent conversions each get their own row, audit row and postbacks', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      const all = await destination(org.auth, { url: 'https://8.8.8.8/all' });
      await destination(org.auth, { url: 'https://8.8.4.4/signup-only', events: ['signup'] });
      const clicks = await Promise.all(Array.from({ length: 40 }, () => insertClick(db, { orgId: org.orgId, campaignId })));
      const responses = await Promise.all(clicks.map((clickId, i) => post(org.auth, { click_id: clickId, event: 'purchase', value: i, order_id: `o-${i}` })));
      expect(responses.map((r) => r.status)).toEqual(clicks.map(() => 201));
      const results = await Promise.all(responses.map(body));
      expect(new Set(results.map((r) => r.id)).size).toBe(40);
      const stored = await db.query<{ id: string; click_id: string; value: number; order_id: string; matched: boolean }>(
        'SELECT id, click_id, value, order_id, matched FROM conversions WHERE org_id = $1',
        [org.orgId],
      );
      expect(stored).toHaveLength(40);
      for (const [i, result] of results.entries()) {
        expect(stored.find((row) => row.id === result.id)).toMatchObject({ click_id: clicks[i], value: i, order_id: `o-${i}`, matched: true });
      }
      const audits = await db.query<{ entity_id: string; action: string; api_key_id: string }>(
        "SELECT entity_id, action, api_key_id FROM audit_log WHERE org_id = $1 AND entity = 'conversion'",
        [org.orgId],
      );
      expect(audits.map((a) => a.entity_id).sort()).toEqual(results.map((r) => r.id).sort());
      expect(audits.every((a) => a.action === 'create' && a.api_key_id === org.keyId)).toBe(true);
      const deliveries = await db.query<{ id: string; conversion_id: string; destination_id: string }>(
        'SELECT id, conversion_id, destination_id FROM postback_deliveries WHERE org_id = $1',
        [org.orgId],
      );
      // Only the destination for every event wants purchases: one delivery per conversion.
      expect(deliveries.map((d) => d.conversion_id).sort()).toEqual(results.map((r) => r.id).sort());
      expect(deliveries.every((d) => d.destination_id === all.id && d.id === `${d.conversion_id}.1`)).toBe(true);
    });

    test('concurrent repeats of one order_id + event make one conversion, the rest update it', async () => {
      const org = await orgWithKey(db);
      await destination(org.auth, { url: 'https://8.8.8.8/all' });
      const clickId = await insertClick(db, { orgId: org.orgId });
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => post(org.auth, { click_id: clickId, order_id: 'same', event: 'purchase', value: i }).then(body)));
      const ids = new Set(results.map((r) => r.id));
      expect(ids.size).toBe(1);
      const [row] = await db.query<{ id: string; value: number }>('SELECT id, value FROM conversions WHERE org_id = $1', [org.orgId]);
      expect(ids.has(row!.id)).toBe(true);
      const actions = await db.query<{ action: string }>("SELECT action FROM audit_log WHERE org_id = $1 AND entity = 'conversion' ORDER BY action", [org.orgId]);
      expect(actions.map((a) => a.action)).toEqual(['create', ...Array(11).fill('update')]);
      const deliveries = await db.query('SELECT 1 FROM postback_deliveries WHERE org_id = $1', [org.orgId]);
      expect(deliveries).toHaveLength(1);
    });

    test('in one burst, stored clicks, unknown click ids and other organizations each get their own answer', async () => {
      const org = await orgWithKey(db, 'Owner');
      const other = await orgWithKey(db, 'Other');
      const { campaignId } = await insertCampaign(db, org.orgId);
      const mine = await insertClick(db, { orgId: org.orgId, campaignId });
      const theirs = await insertClick(db, { orgId: other.orgId });
      const dropped = await insertClick(db, { orgId: org.orgId, isBot: true });
      const [matched, unknown, foreign, bot] = await Promise.all([
        post(org.auth, { click_id: mine }).then(body),
        post(org.auth, { click_id: 'no-such-click' }).then(body),
        post(org.auth, { click_id: theirs }).then(body),
        post(org.auth, { click_id: dropped }).then(body),
      ]);
      expect([matched.matched, unknown.matched, foreign.matched, bot.matched]).toEqual([true, false, false, false]);
      const rows = await db.query<{ id: string; campaign_id: string | null }>('SELECT id, campaign_id FROM conversions WHERE org_id = $1', [org.orgId]);
      expect(rows).toHaveLength(4);
      expect(rows.find((r) => r.id === matched.id)!.campaign_id).toBe(campaignId);
      expect(await db.query('SELECT 1 FROM conversions WHERE org_id = $1', [other.orgId])).toHaveLength(0);
    });
  });
}
