import { describe, expect, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import { newId } from '../../src/shared/ids';
import { TIMESTAMP_ERROR } from '../../src/shared/timestamp';
import type { JournaledClick } from '../../src/tracking/tracking.model';
import { body, testApp } from '../support/app';
import { insertClick, type ClickOverrides } from '../support/clicks';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';

const CLICK_FIELDS = [
  'id', 'createdAt', 'gclid', 'gbraid', 'wbraid', 'campaignExtId', 'adGroupExtId', 'creativeId', 'keyword', 'matchType',
  'network', 'device', 'nextHopUrl', 'transparentParamPresent', 'forceTransparent', 'isBot', 'dropReason', 'latencyMs', 'route',
  'riskScore', 'riskReasons',
].sort();

for (const backend of backends()) {
  describe(`GET /api/v1/clicks on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const list = (query: string, auth: Record<string, string>) => t.request(`/api/v1/clicks${query}`, { headers: auth });
    const insertClicks = (orgId: string, rows: Omit<ClickOverrides, 'orgId'>[]) => Promise.all(rows.map((row) => insertClick(db, { orgId, ...row })));

    describe('happy', () => {
      test('exactly the Click read model, field names and types', async () => {
        const org = await orgWithKey(db);
        const id = newId();
        await insertClick(db, {
          orgId: org.orgId, id, createdAt: '2026-09-02T10:00:00.123Z', gclid: 'Cj0KCQjw', gbraid: 'gb1', wbraid: 'wb1', campaignExtId: '111',
          adGroupExtId: '222', creativeId: '333', keyword: 'running shoes', matchType: 'e', network: 'g', device: 'm',
          nextHopUrl: `https://shop.example.com/p?svc_click_id=${id}`, transparentParamPresent: true, forceTransparent: true, isBot: true,
          latencyMs: 7, dropReason: 'verified_bot', riskReasons: ['no_scroll', 'datacenter_ip'],
        });
        const res = await list('', org.auth);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('application/json');
        const payload = await body(res);
        expect(Object.keys(payload)).toEqual(['data', 'next_cursor']);
        expect(payload.data).toHaveLength(1);
        const click = payload.data[0];
        expect(Object.keys(click).sort()).toEqual(CLICK_FIELDS);
        expect(click).toEqual({
          id,
          createdAt: '2026-09-02T10:00:00.123Z',
          gclid: 'Cj0KCQjw',
          gbraid: 'gb1',
          wbraid: 'wb1',
          campaignExtId: '111',
          adGroupExtId: '222',
          creativeId: '333',
          keyword: 'running shoes',
          matchType: 'e',
          network: 'g',
          device: 'm',
          nextHopUrl: `https://shop.example.com/p?svc_click_id=${id}`,
          transparentParamPresent: true,
          forceTransparent: true,
          isBot: true,
          dropReason: 'verified_bot',
          latencyMs: 7,
          route: null,
          riskScore: 50,
          riskReasons: ['datacenter_ip', 'no_scroll'],
        });
      });

      test('a smart-link click journaled with its route is exported with it; a /c click has route null', async () => {
        const org = await orgWithKey(db);
        const route = { rule_index: 1, rule_name: 'ios-us', action: 'store', variant_index: null, page: 'interstitial' } as const;
        const noRule = { rule_index: null, rule_name: null, action: 'fallback', variant_index: null, page: null } as const;
        const [smart, fallback, plain] = [newId(), newId(), newId()];
        const journaled = (id: string, minute: number, extra: Partial<JournaledClick>): JournaledClick => ({
          id, org_id: org.orgId, created_at: `2026-09-02T10:0${minute}:00.000Z`, next_hop_url: `https://shop.example.com/?svc_click_id=${id}`, ...extra,
        });
        t.services.clickPipeline.recordClick(journaled(smart, 2, { route }));
        t.services.clickPipeline.recordClick(journaled(fallback, 1, { route: noRule }));
        t.services.clickPipeline.recordClick(journaled(plain, 0, {}));
        await t.services.clickPipeline.flush();
        const { data } = await body(await list('', org.auth));
        expect(data.map((c: { id: string; route: unknown }) => [c.id, c.route])).toEqual([[smart, route], [fallback, noRule], [plain, null]]);
      });

      test('a click scored as it is stored shows its risk score and reasons', async () => {
        const org = await orgWithKey(db);
        const [dc, home] = [newId(), newId()];
        const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
        for (const [id, ip] of [[dc, '5.9.1.1'], [home, '73.162.1.1']] as const) {
          t.services.clickPipeline.recordClick({
            id, org_id: org.orgId, created_at: new Date().toISOString(), next_hop_url: `https://shop.example.com/?svc_click_id=${id}`, ip, user_agent: iphone,
          });
        }
        await t.services.clickPipeline.flush();
        const { data } = await body(await list('', org.auth));
        const risk = Object.fromEntries(data.map((c: { id: string; riskScore: number; riskReasons: string[] }) => [c.id, [c.riskScore, c.riskReasons]]));
        expect(risk).toEqual({ [dc]: [40, ['datacenter_ip']], [home]: [0, []] });
      });

      test('nullable fields come back as null, never missing', async () => {
        const org = await orgWithKey(db);
        await insertClicks(org.orgId, [{ createdAt: '2026-09-02T10:00:00Z', latencyMs: null }]);
        const [click] = (await body(await list('', org.auth))).data;
        expect(Object.keys(click).sort()).toEqual(CLICK_FIELDS);
        for (const field of ['gclid', 'gbraid', 'wbraid', 'campaignExtId', 'adGroupExtId', 'creativeId', 'keyword', 'matchType', 'network', 'device', 'dropReason', 'latencyMs', 'route']) {
          expect(click[field]).toBeNull();
        }
        expect([click.transparentParamPresent, click.forceTransparent, click.isBot]).toEqual([false, false, false]);
      });

      test('newest first, ties broken by id descending; default limit 100', async () => {
        const org = await orgWithKey(db);
        const sameInstant = '2026-09-01T12:00:00.000Z';
        const rows: Omit<ClickOverrides, 'orgId'>[] = Array.from({ length: 105 }, (_, i) => ({ createdAt: new Date(Date.UTC(2026, 7, 1) + i * 60_000).toISOString() }));
        rows.push({ id: '01K00000000000000000000001', createdAt: sameInstant }, { id: '01K00000000000000000000002', createdAt: sameInstant });
        await insertClicks(org.orgId, rows);
        const { data } = await body(await list('', org.auth));
        expect(data).toHaveLength(100);
        expect(data[0].createdAt).toBe(sameInstant);
        expect(data.slice(0, 2).map((c: { id: string }) => c.id)).toEqual(['01K00000000000000000000002', '01K00000000000000000000001']);
        const times = data.map((c: { createdAt: string }) => Date.parse(c.createdAt));
        expect(times).toEqual([...times].sort((a, b) => b - a));
      });

      test('limit 1 and 1000', async () => {
        const org = await orgWithKey(db);
        await insertClicks(org.orgId, Array.from({ length: 3 }, (_, i) => ({ createdAt: `2026-09-02T10:0${i}:00Z` })));
        const one = await body(await list('?limit=1', org.auth));
        expect(one.data.map((c: { createdAt: string }) => c.createdAt)).toEqual(['2026-09-02T10:02:00.000Z']);
        expect((await body(await list('?limit=1000', org.auth))).data).toHaveLength(3);
        // A repeated parameter uses its last value; unknown parameters are ignored.
        expect((await body(await list('?limit=1000&limit=2&colour=blue', org.auth))).data).toHaveLength(2);
      });

      test('since is an inclusive lower bound, in any offset', async () => {
        const org = await orgWithKey(db);
        await insertClicks(org.orgId, [
          { createdAt: '2026-09-02T09:59:59.999Z' },
          { createdAt: '2026-09-02T10:00:00.000Z' },
          { createdAt: '2026-09-02T11:00:00.000Z' },
        ]);
        const times = async (query: string) => (await body(await list(query, org.auth))).data.map((c: { createdAt: string }) => c.createdAt);
        expect(await times('?since=2026-09-02T10:00:00Z')).toEqual(['2026-09-02T11:00:00.000Z', '2026-09-02T10:00:00.000Z']);
        expect(await times('?since=2026-09-02T12:00:00%2B02:00')).toEqual(['2026-09-02T11:00:00.000Z', '2026-09-02T10:00:00.000Z']);
        // An unencoded '+' arrives as a space; it is read as the '+' it was.
        expect(await times('?since=2026-09-02T12:30:00+02:00')).toEqual(['2026-09-02T11:00:00.000Z']);
        expect(await times('?since=2026-09-02T09:59:59.9995Z')).toEqual(['2026-09-02T11:00:00.000Z', '2026-09-02T10:00:00.000Z']);
        expect(await times('?since=2026-09-03')).toEqual([]);
        expect(await times('?since=2026-09-02')).toHaveLength(3);
      });

      test('gclid filters exactly, combined with since and limit', async () => {
        const org = await orgWithKey(db);
        await insertClicks(org.orgId, [
          { createdAt: '2026-09-02T10:00:00Z', gclid: 'AAA' },
          { createdAt: '2026-09-02T11:00:00Z', gclid: 'AAA' },
          { createdAt: '2026-09-02T12:00:00Z', gclid: 'AAA' },
          { createdAt: '2026-09-02T12:30:00Z', gclid: 'aaa' },
          { createdAt: '2026-09-02T13:00:00Z', gclid: 'BBB' },
          { createdAt: '2026-09-02T14:00:00Z', gclid: null },
        ]);
        const get = async (query: string) => (await body(await list(query, org.auth))).data.map((c: { gclid: string; createdAt: string }) => `${c.gclid}@${c.createdAt.slice(11, 16)}`);
        expect(await get('?gclid=AAA')).toEqual(['AAA@12:00', 'AAA@11:00', 'AAA@10:00']);
        expect(await get('?gclid=AAA&since=2026-09-02T10:30:00Z&limit=1')).toEqual(['AAA@12:00']);
        expect(await get('?gclid=nope')).toEqual([]);
      });

      test('dropped clicks are exported too, each with its reason; a counted click has dropReason null', async () => {
        const org = await orgWithKey(db);
        const [blocked, counted, bot, verified, invalid] = await insertClicks(org.orgId, [
          { createdAt: '2026-09-02T08:00:00Z', dropReason: 'blocked' },
          { createdAt: '2026-09-02T09:00:00Z' },
          { createdAt: '2026-09-02T10:00:00Z', dropReason: 'bot' },
          { createdAt: '2026-09-02T11:00:00Z', dropReason: 'verified_bot', isBot: true },
          { createdAt: '2026-09-02T12:00:00Z', dropReason: 'invalid' },
        ]);
        const { data } = await body(await list('', org.auth));
        expect(data.map((c: { id: string; isBot: boolean; dropReason: string | null }) => [c.id, c.isBot, c.dropReason])).toEqual([
          [invalid, false, 'invalid'],
          [verified, true, 'verified_bot'],
          // An unverified bot is not a verified crawler (isBot false), yet it never attributes.
          [bot, false, 'bot'],
          [counted, false, null],
          [blocked, false, 'blocked'],
        ]);
      });
    });

    describe('error', () => {
      const bad: [string, string][] = [
        ['?limit=0', 'limit'],
        ['?limit=1001', 'limit'],
        ['?limit=abc', 'limit'],
        ['?limit=-5', 'limit'],
        ['?limit=1.5', 'limit'],
        ['?limit=', 'limit'],
        ['?limit=99999999999999999999', 'limit'],
        ['?since=yesterday', 'since'],
        ['?since=2026-02-30T00:00:00Z', 'since'],
        ['?since=2026-09-02T24:00:00Z', 'since'],
        ['?since=2026-09-02T10:00:00', 'since'],
        ['?since=1725271200', 'since'],
        ['?since=', 'since'],
        ['?gclid=', 'gclid'],
        [`?gclid=${'x'.repeat(257)}`, 'gclid'],
      ];
      for (const [query, field] of bad) {
        test(`${query.slice(0, 40)} answers 400 naming ${field}`, async () => {
          const org = await orgWithKey(db);
          const res = await list(query, org.auth);
          expect(res.status).toBe(400);
          const payload = await body(res);
          expect(payload.error.formErrors).toEqual([]);
          expect(Object.keys(payload.error.fieldErrors)).toEqual([field]);
          expect(payload.error.fieldErrors[field][0]).toBeString();
        });
      }

      test('several bad fields are reported together', async () => {
        const org = await orgWithKey(db);
        const payload = await body(await list('?limit=0&since=nope', org.auth));
        expect(payload.error.fieldErrors).toEqual({
          limit: ['must be an integer from 1 to 1000'],
          since: [TIMESTAMP_ERROR],
        });
      });

      test('a gclid holding %00 (text the database cannot hold) answers 400 in the spec shape, not 500', async () => {
        const org = await orgWithKey(db);
        const res = await list('?gclid=a%00b', org.auth);
        expect(res.status).toBe(400);
        expect(await body(res)).toEqual({ error: { formErrors: ['text must not contain NUL (U+0000) characters'], fieldErrors: {} } });
      });

      test('other methods answer 405', async () => {
        const org = await orgWithKey(db);
        const res = await t.request('/api/v1/clicks', { method: 'POST', headers: org.auth, json: {} });
        expect(res.status).toBe(405);
      });
    });

    describe('security', () => {
      test("another organization's clicks are never returned, whatever the filter", async () => {
        const mine = await orgWithKey(db, 'Mine');
        const theirs = await orgWithKey(db, 'Theirs');
        const [myId] = await insertClicks(mine.orgId, [{ createdAt: '2026-09-02T10:00:00Z', gclid: 'SHARED' }]);
        await insertClicks(theirs.orgId, [
          { createdAt: '2026-09-02T11:00:00Z', gclid: 'SHARED' },
          { createdAt: '2026-09-02T12:00:00Z', gclid: 'THEIRS' },
        ]);
        for (const query of ['', '?gclid=SHARED', '?gclid=THEIRS', '?since=2000-01-01T00:00:00Z&limit=1000']) {
          const ids = (await body(await list(query, mine.auth))).data.map((c: { id: string }) => c.id);
          expect(ids).toEqual(query === '?gclid=THEIRS' ? [] : [myId]);
        }
        expect((await body(await list('', theirs.auth))).data).toHaveLength(2);
      });

      test('401 without a key, with a malformed or unknown key, and with a revoked key', async () => {
        const org = await orgWithKey(db);
        await insertClicks(org.orgId, [{ createdAt: '2026-09-02T10:00:00Z' }]);
        const unknownKey = `svc_live_${'A'.repeat(32)}`;
        for (const headers of [{} as Record<string, string>, { authorization: 'Bearer nope' }, { authorization: `Bearer ${unknownKey}` }, { authorization: org.apiKey }]) {
          const res = await list('', headers);
          expect(res.status).toBe(401);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
        }
        expect((await list('', org.auth)).status).toBe(200);
        await revokeApiKey(db, org.orgId, org.keyId);
        const revoked = await list('', org.auth);
        expect(revoked.status).toBe(401);
        expect(await body(revoked)).toEqual({ error: 'unauthorized' });
      });

      test('the key is not accepted from the query string', async () => {
        const org = await orgWithKey(db);
        expect((await list(`?api_key=${org.apiKey}`, {})).status).toBe(401);
      });

      test('responses carry the security headers and no CORS', async () => {
        const org = await orgWithKey(db);
        const res = await list('', org.auth);
        expectSecurityHeaders(res);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      });
    });
  });
}
