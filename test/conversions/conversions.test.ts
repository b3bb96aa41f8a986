import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import { newId } from '../../src/shared/ids';
import { body, poster, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, orgWithKey } from '../support/fixtures';

for (const backend of backends()) {
  describe(`conversions on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const post = poster(t, '/api/v1/conversions');
    const rows = (orgId: string) => db.query<Record<string, any>>('SELECT * FROM conversions WHERE org_id = $1 ORDER BY created_at, id', [orgId]);

    describe('POST /api/v1/conversions', () => {
      test('matches by click_id, answers 201 ConversionResult and stores the campaign', async () => {
        const org = await orgWithKey(db);
        const { campaignId } = await insertCampaign(db, org.orgId);
        const clickId = await insertClick(db, { orgId: org.orgId, campaignId });
        const res = await post(org.auth, { click_id: clickId, event: 'purchase', value: 12.5, currency: 'eur', order_id: 'o-1' });
        expect(res.status).toBe(201);
        const result = await body(res);
        expect(result).toEqual({ ok: true, id: expect.any(String), matched: true });
        const [row] = await rows(org.orgId);
        expect(row).toMatchObject({ id: result.id, click_id: clickId, campaign_id: campaignId, event_name: 'purchase', value: 12.5, currency: 'EUR', order_id: 'o-1', source: 'api', matched: true, api_key_id: org.keyId });
      });

      test('falls back to the most recent click with the gclid', async () => {
        const org = await orgWithKey(db);
        const older = await insertCampaign(db, org.orgId);
        const newer = await insertCampaign(db, org.orgId);
        await insertClick(db, { orgId: org.orgId, gclid: 'G-1', campaignId: older.campaignId, createdAt: new Date(Date.now() - 60_000) });
        const latest = await insertClick(db, { orgId: org.orgId, gclid: 'G-1', campaignId: newer.campaignId, createdAt: new Date(Date.now() - 1_000) });
        const result = await body(await post(org.auth, { gclid: 'G-1' }));
        expect(result.matched).toBe(true);
        const [row] = await rows(org.orgId);
        expect(row).toMatchObject({ click_id: latest, campaign_id: newer.campaignId, gclid: 'G-1', event_name: 'conversion' });
      });

      test('an unknown click id falls back to the gclid', async () => {
        const org = await orgWithKey(db);
        const clickId = await insertClick(db, { orgId: org.orgId, gclid: 'G-fallback' });
        const result = await body(await post(org.auth, { click_id: 'not-a-known-click', gclid: 'G-fallback' }));
        expect(result.matched).toBe(true);
        expect((await rows(org.orgId))[0]!.click_id).toBe(clickId);
      });

      test('unmatched conversions are stored with matched: false', async () => {
        const org = await orgWithKey(db);
        const res = await post(org.auth, { click_id: 'unknown-click', value: 3 });
        expect(res.status).toBe(201);
        expect(await body(res)).toMatchObject({ ok: true, matched: false });
        expect(await rows(org.orgId)).toHaveLength(1);
        expect((await rows(org.orgId))[0]).toMatchObject({ click_id: 'unknown-click', campaign_id: null, matched: false });
      });

      test('clicks dropped by an ingestion step or made by bots do not attribute', async () => {
        const org = await orgWithKey(db);
        const dropped = await insertClick(db, { orgId: org.orgId, dropReason: 'bot' });
        const bot = await insertClick(db, { orgId: org.orgId, isBot: true });
        expect((await body(await post(org.auth, { click_id: dropped }))).matched).toBe(false);
        expect((await body(await post(org.auth, { click_id: bot }))).matched).toBe(false);
        await insertClick(db, { orgId: org.orgId, gclid: 'G-dropped', dropReason: 'invalid' });
        expect((await body(await post(org.auth, { gclid: 'G-dropped' }))).matched).toBe(false);
      });

      test('a repeat with the same order_id and event updates value and currency and answers the same id', async () => {
        const org = await orgWithKey(db);
        const first = await body(await post(org.auth, { click_id: 'abcd-1', order_id: 'A-1', event: 'purchase', value: 10, currency: 'USD' }));
        const repeat = await post(org.auth, { click_id: 'abcd-1', order_id: 'A-1', event: 'purchase', value: 15, currency: 'GBP' });
        expect(repeat.status).toBe(201);
        expect((await body(repeat)).id).toBe(first.id);
        const stored = await rows(org.orgId);
        expect(stored).toHaveLength(1);
        expect(stored[0]).toMatchObject({ value: 15, currency: 'GBP' });
        // A repeat that leaves value out keeps the stored value.
        await post(org.auth, { click_id: 'abcd-1', order_id: 'A-1', event: 'purchase' });
        expect((await rows(org.orgId))[0]).toMatchObject({ value: 15, currency: 'GBP' });
        // Another event with the same order is another conversion.
        const other = await body(await post(org.auth, { click_id: 'abcd-1', order_id: 'A-1', event: 'refund' }));
        expect(other.id).not.toBe(first.id);
        expect(await rows(org.orgId)).toHaveLength(2);
      });

      test('50 concurrent identical posts make exactly one row', async () => {
        const org = await orgWithKey(db);
        const clickId = await insertClick(db, { orgId: org.orgId });
        const responses = await Promise.all(
          Array.from({ length: 50 }, () => post(org.auth, { click_id: clickId, order_id: 'same-order', event: 'purchase', value: 9.99 })),
        );
        expect(responses.map((r) => r.status)).toEqual(Array(50).fill(201));
        const ids = new Set((await Promise.all(responses.map(body))).map((r) => r.id));
        expect(ids.size).toBe(1);
        expect(await rows(org.orgId)).toHaveLength(1);
        const audits = await db.query<{ action: string }>("SELECT action FROM audit_log WHERE org_id = $1 AND entity = 'conversion'", [org.orgId]);
        expect(audits.filter((a) => a.action === 'create')).toHaveLength(1);
        expect(audits).toHaveLength(50);
      });

      test('without order_id every call is a new conversion', async () => {
        const org = await orgWithKey(db);
        const a = await body(await post(org.auth, { click_id: 'abcd-2' }));
        const b = await body(await post(org.auth, { click_id: 'abcd-2' }));
        expect(a.id).not.toBe(b.id);
        expect(await rows(org.orgId)).toHaveLength(2);
      });

      test('every write is audited with the key that made it', async () => {
        const org = await orgWithKey(db);
        const result = await body(await post(org.auth, { click_id: 'abcd-3', order_id: 'audit-1' }));
        await post(org.auth, { click_id: 'abcd-3', order_id: 'audit-1', value: 1 });
        const audits = await db.query<Record<string, any>>('SELECT * FROM audit_log WHERE org_id = $1 ORDER BY created_at, id', [org.orgId]);
        expect(audits.map((a) => [a.action, a.entity, a.entity_id, a.api_key_id])).toEqual([
          ['create', 'conversion', result.id, org.keyId],
          ['update', 'conversion', result.id, org.keyId],
        ]);
      });

      test.each([
        [{}, ['click_id', 'gclid']],
        [{ event: 'purchase' }, ['click_id', 'gclid']],
        [{ click_id: 'abc' }, ['click_id']],
        [{ click_id: 'x'.repeat(65) }, ['click_id']],
        [{ gclid: 'g'.repeat(257) }, ['gclid']],
        [{ click_id: 'abcd', event: 'e'.repeat(65) }, ['event']],
        [{ click_id: 'abcd', event: '' }, ['event']],
        [{ click_id: 'abcd', value: -0.01 }, ['value']],
        [{ click_id: 'abcd', value: '12' }, ['value']],
        [{ click_id: 'abcd', currency: 'EURO' }, ['currency']],
        [{ click_id: 'abcd', currency: 'E1R' }, ['currency']],
        [{ click_id: 'abcd', order_id: 'o'.repeat(129) }, ['order_id']],
        [{ click_id: 'abcd', valeu: 3 }, ['valeu']],
      ])('400 with field errors for %j, nothing stored', async (input, fields) => {
        const org = await orgWithKey(db);
        const res = await post(org.auth, input);
        expect(res.status).toBe(400);
        const error = (await body(res)).error;
        expect(Object.keys(error.fieldErrors).sort()).toEqual([...fields].sort());
        expect(await rows(org.orgId)).toHaveLength(0);
      });

      test('400 for a body that is not JSON', async () => {
        const org = await orgWithKey(db);
        const res = await t.request('/api/v1/conversions', { method: 'POST', headers: { ...org.auth, 'content-type': 'application/json' }, body: '{"click_id":' });
        expect(res.status).toBe(400);
        expect((await body(res)).error.formErrors.length).toBeGreaterThan(0);
      });

      test('400 for text holding U+0000 (which Postgres cannot store), on the hot path and the slow one, and nothing is stored', async () => {
        const org = await orgWithKey(db);
        const clickId = await insertClick(db, { orgId: org.orgId });
        for (const json of [{ click_id: clickId, order_id: 'a\u0000b' }, { click_id: clickId, event: 'e\u0000' }, { gclid: 'g\u0000' }]) {
          const res = await post(org.auth, json);
          expect(res.status).toBe(400);
          expect(await body(res)).toEqual({ error: { formErrors: ['text must not contain NUL (U+0000) characters'], fieldErrors: {} } });
        }
        expect(await rows(org.orgId)).toHaveLength(0);
      });
    });

    describe('/postback', () => {
      test('GET with api_key in the query answers 200 and stores source postback', async () => {
        const org = await orgWithKey(db);
        const { campaignId } = await insertCampaign(db, org.orgId);
        const clickId = await insertClick(db, { orgId: org.orgId, campaignId });
        const res = await t.request(`/postback?api_key=${org.apiKey}&click_id=${clickId}&event=lead&value=4.20&currency=usd&order_id=L-1&sub1=ignored`);
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ ok: true, id: expect.any(String), matched: true });
        expect((await rows(org.orgId))[0]).toMatchObject({ source: 'postback', event_name: 'lead', value: 4.2, currency: 'USD', order_id: 'L-1', campaign_id: campaignId });
      });

      test('POST with the key in the Authorization header', async () => {
        const org = await orgWithKey(db);
        const res = await t.request('/postback?gclid=G-post', { method: 'POST', headers: org.auth });
        expect(res.status).toBe(200);
        expect(await body(res)).toMatchObject({ ok: true, matched: false });
        expect((await rows(org.orgId))[0]).toMatchObject({ source: 'postback', gclid: 'G-post', event_name: 'conversion' });
      });

      test('a repeat postback is idempotent on order_id + event', async () => {
        const org = await orgWithKey(db);
        const first = await body(await t.request(`/postback?api_key=${org.apiKey}&click_id=abcd-pb&order_id=P-1&value=1`));
        const again = await body(await t.request(`/postback?api_key=${org.apiKey}&click_id=abcd-pb&order_id=P-1&value=2`));
        expect(again.id).toBe(first.id);
        expect(await rows(org.orgId)).toHaveLength(1);
        expect((await rows(org.orgId))[0]!.value).toBe(2);
      });

      test('empty parameters count as absent', async () => {
        const org = await orgWithKey(db);
        const res = await t.request(`/postback?api_key=${org.apiKey}&click_id=abcd-empty&value=&currency=&event=&order_id=`);
        expect(res.status).toBe(200);
        expect((await rows(org.orgId))[0]).toMatchObject({ value: null, currency: null, event_name: 'conversion', order_id: null });
      });

      test.each([
        ['', ['click_id', 'gclid']],
        ['&value=abc', ['value', 'click_id', 'gclid']],
        ['&click_id=abcd&value=abc', ['value']],
        ['&click_id=abcd&value=-1', ['value']],
        ['&click_id=abcd&value=0x10', ['value']],
        ['&click_id=abcd&value=1e400', ['value']],
        ['&click_id=abc', ['click_id']],
        ['&click_id=abcd&currency=dollars', ['currency']],
      ])('400 with field errors for %s', async (query, fields) => {
        const org = await orgWithKey(db);
        const res = await t.request(`/postback?api_key=${org.apiKey}${query}`);
        expect(res.status).toBe(400);
        const error = (await body(res)).error;
        expect(Object.keys(error.fieldErrors).sort()).toEqual([...fields].sort());
        expect(await rows(org.orgId)).toHaveLength(0);
      });
    });

    describe('GET /api/v1/conversions', () => {
      test('lists the Conversion read model, newest first, with limit', async () => {
        const org = await orgWithKey(db);
        const { campaignId } = await insertCampaign(db, org.orgId);
        const clickId = await insertClick(db, { orgId: org.orgId, campaignId, gclid: 'G-list' });
        const ids: string[] = [];
        for (const value of [1, 2, 3]) ids.push((await body(await post(org.auth, { click_id: clickId, value, order_id: `list-${value}`, currency: 'USD' }))).id);
        const res = await t.request('/api/v1/conversions', { headers: org.auth });
        expect(res.status).toBe(200);
        const { data } = await body(res);
        expect(data.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
        expect(data[0]).toEqual({
          id: ids[2],
          createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
          clickId,
          campaignId,
          eventName: 'conversion',
          value: 3,
          currency: 'USD',
          orderId: 'list-3',
          gclid: null,
          source: 'api',
        });
        const limited = await body(await t.request('/api/v1/conversions?limit=2', { headers: org.auth }));
        expect(limited.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
      });

      test.each(['0', '1001', 'abc', '1.5'])('400 for limit=%s', async (limit) => {
        const org = await orgWithKey(db);
        const res = await t.request(`/api/v1/conversions?limit=${limit}`, { headers: org.auth });
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors.limit).toBeArray();
      });
    });

    describe('security', () => {
      test('401 without a key, with a wrong key and with a revoked key; nothing stored', async () => {
        const org = await orgWithKey(db);
        expect((await post({}, { click_id: 'abcd' })).status).toBe(401);
        expect((await post({ authorization: `Bearer svc_live_${'x'.repeat(32)}` }, { click_id: 'abcd' })).status).toBe(401);
        expect((await t.request('/postback?click_id=abcd')).status).toBe(401);
        expect((await t.request(`/postback?click_id=abcd&api_key=svc_live_${'y'.repeat(32)}`)).status).toBe(401);
        expect((await t.request('/api/v1/conversions', {})).status).toBe(401);
        await revokeApiKey(db, org.orgId, org.keyId);
        expect((await post(org.auth, { click_id: 'abcd' })).status).toBe(401);
        expect((await t.request(`/postback?click_id=abcd&api_key=${org.apiKey}`)).status).toBe(401);
        expect(await rows(org.orgId)).toHaveLength(0);
      });

      test('the API key is not accepted in the query of /api/v1/conversions', async () => {
        const org = await orgWithKey(db);
        expect((await t.request(`/api/v1/conversions?api_key=${org.apiKey}`)).status).toBe(401);
      });

      test("another organization's click id or gclid does not match", async () => {
        const owner = await orgWithKey(db, 'Owner');
        const other = await orgWithKey(db, 'Other');
        const { campaignId } = await insertCampaign(db, owner.orgId);
        const clickId = await insertClick(db, { orgId: owner.orgId, campaignId, gclid: 'G-owner' });
        expect((await body(await post(other.auth, { click_id: clickId }))).matched).toBe(false);
        expect((await body(await post(other.auth, { gclid: 'G-owner' }))).matched).toBe(false);
        const stored = await rows(other.orgId);
        expect(stored.map((r) => r.campaign_id)).toEqual([null, null]);
      });

      test("the same order_id in two organizations makes two conversions, and lists don't cross", async () => {
        const a = await orgWithKey(db, 'A');
        const b = await orgWithKey(db, 'B');
        const first = await body(await post(a.auth, { click_id: 'abcd', order_id: 'shared' }));
        const second = await body(await post(b.auth, { click_id: 'abcd', order_id: 'shared' }));
        expect(second.id).not.toBe(first.id);
        const listA = await body(await t.request('/api/v1/conversions', { headers: a.auth }));
        expect(listA.data.map((c: { id: string }) => c.id)).toEqual([first.id]);
      });

      test('unlisted methods answer 405', async () => {
        const org = await orgWithKey(db);
        expect((await t.request('/api/v1/conversions', { method: 'DELETE', headers: org.auth })).status).toBe(405);
        expect((await t.request('/postback', { method: 'PUT', headers: org.auth })).status).toBe(405);
      });

      test('a click id shaped like SQL is just an unknown id', async () => {
        const org = await orgWithKey(db);
        await insertClick(db, { orgId: org.orgId });
        const res = await post(org.auth, { click_id: `' OR 1=1 --${newId()}` });
        expect(res.status).toBe(201);
        expect((await body(res)).matched).toBe(false);
      });
    });
  });
}
