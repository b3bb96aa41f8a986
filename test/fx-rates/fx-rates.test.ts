import { describe, expect, test } from 'bun:test';
import { CURRENCY_ERROR } from '../../src/settings/settings.model';
import { DAY_ERROR } from '../../src/shared/timestamp';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { registerAccount } from '../protect/support';

for (const backend of backends()) {
  describe(`exchange rates on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const put = (headers: Record<string, string>, json: unknown) => t.request('/api/v1/fx-rates', { method: 'PUT', headers, json });
    const list = (headers: Record<string, string>, query = '') => t.request(`/api/v1/fx-rates${query}`, { headers });
    const rates = (orgId: string) =>
      db.query<Record<string, any>>("SELECT to_char(day, 'YYYY-MM-DD') AS day, currency, rate::text AS rate, quote FROM fx_rates WHERE org_id = $1 ORDER BY currency, day", [orgId]);

    describe('happy', () => {
      test('upserts on currency plus day, quoted in the reporting currency, and answers {ok, upserted}', async () => {
        const org = await orgWithKey(db);
        const res = await put(org.auth, { rates: [{ day: '2026-03-01', currency: 'EUR', rate: 1.0825 }, { day: '2026-03-01', currency: 'JPY', rate: 0.0066 }] });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ ok: true, upserted: 2 });
        expect(await rates(org.orgId)).toEqual([
          { day: '2026-03-01', currency: 'EUR', rate: '1.0825', quote: 'USD' },
          { day: '2026-03-01', currency: 'JPY', rate: '0.0066', quote: 'USD' },
        ]);
        expect(await body(await put(org.auth, { rates: [{ day: '2026-03-01', currency: 'EUR', rate: 1.09 }, { day: '2026-03-02', currency: 'EUR', rate: 1.1 }] }))).toEqual({ ok: true, upserted: 2 });
        expect((await rates(org.orgId)).filter((r) => r.currency === 'EUR').map((r) => [r.day, r.rate])).toEqual([['2026-03-01', '1.09'], ['2026-03-02', '1.1']]);
      });

      test('the same currency-day twice in one batch: the later rate wins, counted once; the import is audited', async () => {
        const org = await orgWithKey(db);
        expect(await body(await put(org.auth, { rates: [{ day: '2026-04-01', currency: 'GBP', rate: 1.2 }, { day: '2026-04-01', currency: 'GBP', rate: 1.3 }] }))).toEqual({ ok: true, upserted: 1 });
        expect(await rates(org.orgId)).toEqual([{ day: '2026-04-01', currency: 'GBP', rate: '1.3', quote: 'USD' }]);
        const audit = await db.query<Record<string, any>>("SELECT action, api_key_id, detail FROM audit_log WHERE org_id = $1 AND entity = 'fx_rate'", [org.orgId]);
        expect(audit).toEqual([{ action: 'upsert', api_key_id: org.keyId, detail: { rates: 2, upserted: 1, quote: 'USD', currencies: ['GBP'] } }]);
      });

      test('5000 rates in one call, and extreme but real rates keep their digits', async () => {
        const org = await orgWithKey(db);
        const start = Date.UTC(2010, 0, 1);
        const batch = Array.from({ length: 5000 }, (_, i) => ({ day: new Date(start + Math.floor(i / 2) * 86_400_000).toISOString().slice(0, 10), currency: i % 2 ? 'EUR' : 'IDR', rate: i % 2 ? 1.1 : 0.000063 }));
        expect(await body(await put(org.auth, { rates: batch }))).toEqual({ ok: true, upserted: 5000 });
        expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM fx_rates WHERE org_id = $1', [org.orgId]))[0]!.n).toBe(5000);
        await put(org.auth, { rates: [{ day: '2026-01-01', currency: 'BTC', rate: 97_000.5 }, { day: '2026-01-01', currency: 'VND', rate: 1e-12 }] });
        expect((await rates(org.orgId)).filter((r) => r.day === '2026-01-01').map((r) => [r.currency, Number(r.rate)])).toEqual([['BTC', 97_000.5], ['VND', 1e-12]]);
      });

      test('GET lists newest day first, filtered by currency and days, limited', async () => {
        const org = await orgWithKey(db);
        await put(org.auth, {
          rates: [
            { day: '2026-05-01', currency: 'EUR', rate: 1.1 },
            { day: '2026-05-03', currency: 'EUR', rate: 1.12 },
            { day: '2026-05-02', currency: 'CHF', rate: 1.15 },
            { day: '2026-05-05', currency: 'EUR', rate: 1.13 },
          ],
        });
        const all = await list(org.auth);
        expect(all.status).toBe(200);
        const data = (await body(all)).data;
        expect(data.map((r: any) => [r.day, r.currency, r.rate])).toEqual([['2026-05-05', 'EUR', 1.13], ['2026-05-03', 'EUR', 1.12], ['2026-05-02', 'CHF', 1.15], ['2026-05-01', 'EUR', 1.1]]);
        expect(data[0]).toEqual({ day: '2026-05-05', currency: 'EUR', rate: 1.13, quote: 'USD', updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) });
        const some = (await body(await list(org.auth, '?currency=EUR&from=2026-05-02&to=2026-05-04'))).data;
        expect(some.map((r: any) => r.day)).toEqual(['2026-05-03']);
        expect((await body(await list(org.auth, '?limit=2'))).data.map((r: any) => r.day)).toEqual(['2026-05-05', '2026-05-03']);
      });

      test('a rate is quoted in the reporting currency of its day of writing; a change of currency keeps it as it was', async () => {
        const org = await orgWithKey(db);
        await put(org.auth, { rates: [{ day: '2026-06-01', currency: 'EUR', rate: 1.1 }] });
        await t.request('/api/v1/settings', { method: 'PUT', headers: org.auth, json: { currency: 'GBP' } });
        await put(org.auth, { rates: [{ day: '2026-06-02', currency: 'EUR', rate: 0.85 }] });
        // A rate written by SQL without a quote is in the current reporting currency too.
        await db.query("INSERT INTO fx_rates (id, org_id, day, currency, rate) VALUES ($1, $2, DATE '2026-06-03', 'EUR', 0.86)", [`sql-${org.orgId}`, org.orgId]);
        expect((await rates(org.orgId)).map((r) => [r.day, r.quote])).toEqual([['2026-06-01', 'USD'], ['2026-06-02', 'GBP'], ['2026-06-03', 'GBP']]);
      });
    });

    describe('error', () => {
      test.each([
        [{ rates: [] }, 'rates'],
        [{}, 'rates'],
        [{ rates: 'EUR' }, 'rates'],
        [{ rates: [{ day: '2026/01/01', currency: 'EUR', rate: 1 }] }, 'rates.0.day'],
        [{ rates: [{ day: '2026-02-30', currency: 'EUR', rate: 1 }] }, 'rates.0.day'],
        [{ rates: [{ currency: 'EUR', rate: 1 }] }, 'rates.0.day'],
        [{ rates: [{ day: '2026-01-01', currency: 'eur', rate: 1 }] }, 'rates.0.currency'],
        [{ rates: [{ day: '2026-01-01', currency: 'EURO', rate: 1 }] }, 'rates.0.currency'],
        [{ rates: [{ day: '2026-01-01', rate: 1 }] }, 'rates.0.currency'],
        [{ rates: [{ day: '2026-01-01', currency: 'EUR', rate: 0 }] }, 'rates.0.rate'],
        [{ rates: [{ day: '2026-01-01', currency: 'EUR', rate: -1.1 }] }, 'rates.0.rate'],
        [{ rates: [{ day: '2026-01-01', currency: 'EUR', rate: 1e13 }] }, 'rates.0.rate'],
        [{ rates: [{ day: '2026-01-01', currency: 'EUR', rate: '1.1' }] }, 'rates.0.rate'],
        [{ rates: [{ day: '2026-01-01', currency: 'EUR' }] }, 'rates.0.rate'],
        [{ rates: [{ day: '2026-01-01', currency: 'EUR', rate: 1, source: 'ecb' }] }, 'rates.0.source'],
        [{ rates: [{ day: '2026-01-01', currency: 'EUR', rate: 1 }, { day: '2026-01-01', currency: 'USD', rate: 1 }] }, 'rates.1.currency'],
      ])('400 for %j names %s and writes nothing', async (input, field) => {
        const org = await orgWithKey(db);
        const res = await put(org.auth, input);
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors)).toContain(field);
        expect(await rates(org.orgId)).toEqual([]);
      });

      test('a rate of the reporting currency itself is refused: its amounts need no rate', async () => {
        const org = await orgWithKey(db);
        const res = await put(org.auth, { rates: [{ day: '2026-01-01', currency: 'EUR', rate: 1.1 }, { day: '2026-01-01', currency: 'USD', rate: 1 }] });
        expect((await body(res)).error.fieldErrors).toEqual({ 'rates.1.currency': ['is the reporting currency (USD): its amounts need no rate'] });
        expect(await rates(org.orgId)).toEqual([]);
      });

      test('one bad day among many names itself, and more than 5000 rates is a 400; neither writes anything', async () => {
        const org = await orgWithKey(db);
        const batch = [1, 2, 3, 4].map((d) => ({ day: `2026-07-0${d}`, currency: 'EUR', rate: 1.1 }));
        batch[2]!.day = '2026-07-32';
        expect((await body(await put(org.auth, { rates: batch }))).error.fieldErrors).toEqual({ 'rates.2.day': [DAY_ERROR] });
        const many = Array.from({ length: 5001 }, () => ({ day: '2026-07-01', currency: 'EUR', rate: 1.1 }));
        const res = await put(org.auth, { rates: many });
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors.rates).toBeArray();
        expect(await rates(org.orgId)).toEqual([]);
      });

      test.each([
        ['?currency=eur', 'currency', CURRENCY_ERROR],
        ['?from=2026-13-01', 'from', DAY_ERROR],
        ['?to=yesterday', 'to', DAY_ERROR],
        ['?from=2026-05-03&to=2026-05-01', 'to', 'must be the same day as from or later'],
        ['?limit=0', 'limit', 'must be an integer from 1 to 1000'],
        ['?limit=1001', 'limit', 'must be an integer from 1 to 1000'],
      ])('GET %s is a 400 naming %s', async (query, field, message) => {
        const org = await orgWithKey(db);
        const res = await list(org.auth, query);
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors[field]).toEqual([message]);
      });
    });

    describe('security', () => {
      test('no key, a revoked key or a session is 401 and writes nothing', async () => {
        const org = await orgWithKey(db);
        const rate = { rates: [{ day: '2026-01-01', currency: 'EUR', rate: 1.1 }] };
        expect((await put({}, rate)).status).toBe(401);
        expect((await list({})).status).toBe(401);
        const me = await registerAccount(t);
        expect((await put({ cookie: me.cookie }, rate)).status).toBe(401);
        await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [org.keyId]);
        expect((await put(org.auth, rate)).status).toBe(401);
        expect(await rates(org.orgId)).toEqual([]);
        expect((await t.request('/api/v1/fx-rates', { method: 'POST', headers: (await orgWithKey(db)).auth, json: rate })).status).toBe(405);
      });

      test("another organization's rates are neither listed nor overwritten", async () => {
        const mine = await orgWithKey(db);
        const theirs = await orgWithKey(db, 'Other');
        await put(mine.auth, { rates: [{ day: '2026-08-01', currency: 'EUR', rate: 1.1 }] });
        expect((await body(await list(theirs.auth))).data).toEqual([]);
        await put(theirs.auth, { rates: [{ day: '2026-08-01', currency: 'EUR', rate: 2 }] });
        expect(await rates(mine.orgId)).toEqual([{ day: '2026-08-01', currency: 'EUR', rate: '1.1', quote: 'USD' }]);
        expect((await body(await list(mine.auth))).data.map((r: any) => r.rate)).toEqual([1.1]);
      });
    });
  });
}
