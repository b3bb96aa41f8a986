import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { ulid } from 'ulid';
import { clickIdTime, DEFAULT_CLICK_WAIT, isFreshClickId } from '../../src/tracking/click-arrival';
import { newId } from '../../src/shared/ids';
import { body, poster, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, orgWithKey } from '../support/fixtures';

describe('click id freshness', () => {
  test('a ULID minted inside the window is fresh, outside it is not', () => {
    const now = Date.UTC(2026, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: -60_000, max: 60_000 }), (offset) => {
        const id = ulid(now + offset);
        const expected = offset >= -DEFAULT_CLICK_WAIT.freshClickMs && offset <= DEFAULT_CLICK_WAIT.futureSkewMs;
        expect(isFreshClickId(id, now)).toBe(expected);
        expect(isFreshClickId(id.toLowerCase(), now)).toBe(expected);
      }),
    );
  });

  test('anything that is not a ULID is never fresh', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 4, maxLength: 64 }), (text) => {
        fc.pre(!/^[0-9A-HJKMNP-TV-Z]{26}$/i.test(text));
        expect(clickIdTime(text)).toBeNull();
        expect(isFreshClickId(text, Date.now())).toBe(false);
      }),
    );
  });
});

for (const backend of backends()) {
  describe(`conversion matching on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    // These tests run the late matcher themselves, to see what each pass matched.
    await t.services.lateMatcher.stop();
    const post = poster(t, '/api/v1/conversions');
    const conversion = async (id: string) => (await db.query<Record<string, any>>('SELECT * FROM conversions WHERE id = $1', [id]))[0]!;

    test('a conversion posted while its click is still in the pipeline waits for it and matches', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      const clickId = newId();
      const answer = post(org.auth, { click_id: clickId, event: 'purchase' });
      // The batcher flushes the click a moment after the conversion arrived.
      await Bun.sleep(150);
      await insertClick(db, { orgId: org.orgId, id: clickId, campaignId });
      const result = await body(await answer);
      expect(result.matched).toBe(true);
      expect(await conversion(result.id)).toMatchObject({ click_id: clickId, campaign_id: campaignId, matched: true });
    });

    test('a click that lands after the wait is matched late, by click id', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      const clickId = newId();
      const result = await body(await post(org.auth, { click_id: clickId }));
      expect(result.matched).toBe(false);
      await insertClick(db, { orgId: org.orgId, id: clickId, campaignId });
      expect(await t.services.lateMatcher.runOnce()).toContain(result.id);
      expect(await conversion(result.id)).toMatchObject({ click_id: clickId, campaign_id: campaignId, matched: true });
      const listed = await body(await t.request('/api/v1/conversions', { headers: org.auth }));
      expect(listed.data[0]).toMatchObject({ id: result.id, clickId, campaignId });
    });

    test('late matching by gclid takes the most recent attributable click', async () => {
      const org = await orgWithKey(db);
      const { campaignId } = await insertCampaign(db, org.orgId);
      const result = await body(await post(org.auth, { gclid: 'G-late' }));
      expect(result.matched).toBe(false);
      await insertClick(db, { orgId: org.orgId, gclid: 'G-late', createdAt: new Date(Date.now() - 5000) });
      const latest = await insertClick(db, { orgId: org.orgId, gclid: 'G-late', campaignId });
      await insertClick(db, { orgId: org.orgId, gclid: 'G-late', dropReason: 'bot' });
      expect(await t.services.lateMatcher.runOnce()).toContain(result.id);
      expect(await conversion(result.id)).toMatchObject({ click_id: latest, campaign_id: campaignId, matched: true });
    });

    test('late matching never crosses organizations, skips dropped clicks and old conversions', async () => {
      const owner = await orgWithKey(db, 'Owner');
      const other = await orgWithKey(db, 'Other');
      const foreign = newId();
      const dropped = 'dropped-click-id';
      const old = 'old-click-id';
      const a = await body(await post(other.auth, { click_id: foreign }));
      const b = await body(await post(owner.auth, { click_id: dropped }));
      const c = await body(await post(owner.auth, { click_id: old }));
      await db.query("UPDATE conversions SET created_at = now() - interval '1 hour' WHERE id = $1", [c.id]);
      await insertClick(db, { orgId: owner.orgId, id: foreign });
      await insertClick(db, { orgId: owner.orgId, id: dropped, dropReason: 'blocked' });
      await insertClick(db, { orgId: owner.orgId, id: old });
      const matched = await t.services.lateMatcher.runOnce();
      expect(matched).not.toContain(a.id);
      expect(matched).not.toContain(b.id);
      expect(matched).not.toContain(c.id);
      for (const id of [a.id, b.id, c.id]) expect((await conversion(id)).matched).toBe(false);
    });

    test('a matched conversion is not matched again', async () => {
      const org = await orgWithKey(db);
      const clickId = await insertClick(db, { orgId: org.orgId });
      const result = await body(await post(org.auth, { click_id: clickId }));
      expect(result.matched).toBe(true);
      expect(await t.services.lateMatcher.runOnce()).not.toContain(result.id);
    });
  });
}
