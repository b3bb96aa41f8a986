import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { WINDOW_NOT_OVER } from '../../src/growth/tv-airings.service';
import { newId } from '../../src/shared/ids';
import { body, poster, TEST_TRACKING_URL, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign, insertLink, orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { mirrored, sdkCall } from '../sdk/support';

const MIN = 60_000;
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** `count` instants spread evenly over [from, from + minutes). */
const spread = (from: number, count: number, minutes: number) => Array.from({ length: count }, (_, i) => from + Math.floor((i * minutes * MIN) / count));

for (const backend of backends()) {
  describe(`TV airings on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { workers: false });
    const post = poster(t, '/api/v1/tv-airings');
    const list = async (auth: Record<string, string>, query = '') => body(await t.request(`/api/v1/tv-airings${query}`, { headers: auth }));
    const storedCount = async (orgId: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tv_airings WHERE org_id = $1', [orgId]))[0]!.n;
    // A whole minute well in the past, so every window has ended.
    const T = Math.floor(Date.now() / MIN) * MIN - 8 * 60 * MIN;
    const iso = (at: number) => new Date(at).toISOString();

    /** Clicks stored as the pipeline stores them, then waited for on the mirror. */
    async function clicks(orgId: string, times: number[], extra: { region?: string | null; dropReason?: string | null } = {}) {
      const rows = times.map((at) => [newId(), orgId, iso(at), 'https://shop.example.com/', extra.region ?? null, extra.dropReason ?? null]);
      await db.bulkInsert('clicks', ['id', 'org_id', 'created_at', 'next_hop_url', 'region', 'drop_reason'], rows);
    }
    async function mirroredClicks(orgId: string) {
      const [stored] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE org_id = $1', [orgId]);
      await mirrored<{ n: number }>(t, 'SELECT count(*) AS n FROM clicks WHERE org_id = $1', [orgId], (rows) => Number(rows[0]?.n) === stored!.n);
    }

    describe('attribution', () => {
      test('a clear spike (2 a minute before, 40 in the window) is attributed: lift 20, cost per lift', async () => {
        const org = await orgWithKey(db);
        const { campaignId } = await insertCampaign(db, org.orgId, { externalId: 'tv-spring' });
        await clicks(org.orgId, [...spread(T - 30 * MIN, 60, 30), ...spread(T, 40, 10)]);
        await mirroredClicks(org.orgId);
        const res = await post(org.auth, { airings: [{ network: 'ZDF', program: 'heute', aired_at: iso(T), cost: 500, spot_length_sec: 30, campaign_external_id: 'tv-spring' }] });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ accepted: 1, attributed_airings: 1 });
        expect((await list(org.auth)).data).toEqual([
          {
            id: expect.any(String),
            network: 'ZDF',
            program: 'heute',
            region: null,
            aired_at: iso(T),
            window_min: 10,
            spot_length_sec: 30,
            cost: 500,
            campaign_id: campaignId,
            baseline_per_min: 2,
            window_count: 40,
            lift: 20,
            attributed: true,
            cost_per_lift: 25,
          },
        ]);
      });

      test('steady traffic is not attributed, and has no cost per lift', async () => {
        const org = await orgWithKey(db);
        await clicks(org.orgId, spread(T - 40 * MIN, 120, 60));
        await mirroredClicks(org.orgId);
        expect(await body(await post(org.auth, { airings: [{ network: 'ARD', aired_at: iso(T), cost: 100, window_min: 20 }] }))).toEqual({ accepted: 1, attributed_airings: 0 });
        expect((await list(org.auth)).data[0]).toMatchObject({ baseline_per_min: 2, window_count: 40, lift: 0, attributed: false, cost_per_lift: null });
      });

      test('two overlapping spots split one spike, in one import or across two', async () => {
        const org = await orgWithKey(db);
        await clicks(org.orgId, [...spread(T - 30 * MIN, 90, 45), ...spread(T + 5 * MIN, 60, 5)]);
        await mirroredClicks(org.orgId);
        const first = { network: 'RTL', aired_at: iso(T) };
        const second = { network: 'SAT.1', aired_at: iso(T + 5 * MIN) };
        expect(await body(await post(org.auth, { airings: [first] }))).toEqual({ accepted: 1, attributed_airings: 1 });
        expect((await list(org.auth)).data[0]).toMatchObject({ window_count: 80, lift: 60 });
        // The second spot arrives later: the first one's figures are rewritten to share the spike.
        expect(await body(await post(org.auth, { airings: [second] }))).toEqual({ accepted: 1, attributed_airings: 1 });
        const [later, earlier] = (await list(org.auth)).data;
        expect(later).toMatchObject({ network: 'SAT.1', window_count: 80, attributed: true });
        expect(earlier).toMatchObject({ network: 'RTL', window_count: 80, attributed: true });
        expect(later.lift).toBeCloseTo(30, 6);
        expect(earlier.lift).toBeCloseTo(30, 6);

        const again = await orgWithKey(db);
        await clicks(again.orgId, [...spread(T - 30 * MIN, 90, 45), ...spread(T + 5 * MIN, 60, 5)]);
        await mirroredClicks(again.orgId);
        expect(await body(await post(again.auth, { airings: [second, first] }))).toEqual({ accepted: 2, attributed_airings: 2 });
        const lifts = (await list(again.auth)).data.map((airing: { lift: number }) => airing.lift);
        expect(lifts[0]).toBeCloseTo(30, 6);
        expect(lifts[1]).toBeCloseTo(30, 6);
      });

      test('two spots at the same minute on two networks share one clear spike and are both attributed', async () => {
        const org = await orgWithKey(db);
        await clicks(org.orgId, [...spread(T - 30 * MIN, 60, 30), ...spread(T, 40, 10)]);
        await mirroredClicks(org.orgId);
        const airings = [
          { network: 'ARD', aired_at: iso(T) },
          { network: 'ZDF', aired_at: iso(T) },
        ];
        expect(await body(await post(org.auth, { airings }))).toEqual({ accepted: 2, attributed_airings: 2 });
        const stored = (await list(org.auth)).data;
        expect(stored).toHaveLength(2);
        for (const airing of stored) {
          expect(airing).toMatchObject({ baseline_per_min: 2, window_count: 40, attributed: true });
          expect(airing.lift).toBeCloseTo(10, 9);
        }
      });

      test("a later import of an earlier spot takes its spike out of a stored spot's baseline", async () => {
        const org = await orgWithKey(db);
        await clicks(org.orgId, [...spread(T - 60 * MIN, 85, 85), ...spread(T, 100, 10)]);
        await mirroredClicks(org.orgId);
        await post(org.auth, { airings: [{ network: 'Later', aired_at: iso(T + 15 * MIN) }] });
        const inflated = (await list(org.auth)).data[0];
        expect(inflated.baseline_per_min).toBeCloseTo(130 / 30, 9);
        expect(await body(await post(org.auth, { airings: [{ network: 'Earlier', aired_at: iso(T) }] }))).toEqual({ accepted: 1, attributed_airings: 1 });
        const [later, earlier] = (await list(org.auth)).data;
        expect(later).toMatchObject({ network: 'Later', id: inflated.id, baseline_per_min: 1, window_count: 10, lift: 0, attributed: false });
        expect(earlier).toMatchObject({ network: 'Earlier', baseline_per_min: 1, window_count: 110, lift: 100, attributed: true });
        const audits = await db.query<{ detail: Record<string, number> }>("SELECT detail FROM audit_log WHERE org_id = $1 AND entity = 'tv_airing' ORDER BY created_at", [org.orgId]);
        expect(audits.map((a) => a.detail.rewritten)).toEqual([0, 1]);
      });

      test('an offset in aired_at (+05:30) lands on the right minute', async () => {
        const org = await orgWithKey(db);
        await clicks(org.orgId, spread(T, 30, 10));
        await mirroredClicks(org.orgId);
        const local = new Date(T + (5 * 60 + 30) * MIN).toISOString().slice(0, 19);
        expect(await body(await post(org.auth, { airings: [{ network: 'Star', aired_at: `${local}+05:30` }] }))).toEqual({ accepted: 1, attributed_airings: 1 });
        // The same wall time read as UTC is five and a half hours later, where nothing happened.
        expect(await body(await post(org.auth, { airings: [{ network: 'Star', aired_at: `${local}Z` }] }))).toEqual({ accepted: 1, attributed_airings: 0 });
        const offset = (await list(org.auth)).data.find((airing: { aired_at: string }) => airing.aired_at === iso(T));
        expect(offset).toMatchObject({ window_count: 30, lift: 30, attributed: true });
      });

      test('dropped clicks, other event names and traffic outside the window do not count; installs and session starts do', async () => {
        const org = await orgWithKey(db);
        const app = await sdkApp(db, org.orgId);
        await clicks(org.orgId, spread(T, 20, 10), { dropReason: 'bot' });
        await clicks(org.orgId, [T - 1, T + 10 * MIN]);
        const deviceId = hashedDeviceId();
        const call = sdkCall(t, app.sdkKey, '192.0.2.50');
        expect((await call('install', { device_id: deviceId, platform: 'android', installed_at: iso(T + MIN) })).status).toBe(201);
        const events = [...spread(T, 6, 10).map((at) => ({ name: 'session_start', occurred_at: iso(at) })), { name: 'purchase', occurred_at: iso(T + MIN) }];
        expect((await call('events', { device_id: deviceId, events })).status).toBe(200);
        await mirrored<{ n: number }>(t, "SELECT count(*) AS n FROM events WHERE org_id = $1 AND name = 'session_start'", [org.orgId], (rows) => Number(rows[0]?.n) === 6);
        await mirrored<{ n: number }>(t, 'SELECT count(*) AS n FROM installs WHERE org_id = $1', [org.orgId], (rows) => Number(rows[0]?.n) === 1);
        await mirroredClicks(org.orgId);
        await post(org.auth, { airings: [{ network: 'VOX', aired_at: iso(T) }] });
        expect((await list(org.auth)).data[0]).toMatchObject({ baseline_per_min: 1 / 30, window_count: 7 });
      });
    });

    describe('regions', () => {
      test('clicks, installs and events carry the region of their address; a regional airing counts only its region', async () => {
        const org = await orgWithKey(db);
        const app = await sdkApp(db, org.orgId);
        const { slug } = await insertLink(db, org.orgId);
        // The windows end 2 s after the redirect below and the import waits for that end.
        const clickedAt = Date.now();
        const at = clickedAt + 2000 - 15 * MIN;
        // Bavaria (5.1.66.1): a click through the redirect, an install and session starts; California: clicks.
        const click = await t.request(`${TEST_TRACKING_URL}/c/${slug}`, { headers: { 'user-agent': IPHONE, 'x-forwarded-for': '5.1.66.1' } });
        expect(click.status).toBe(302);
        await t.services.clickPipeline.flush();
        const deviceId = hashedDeviceId();
        const bavarian = sdkCall(t, app.sdkKey, '5.1.66.1');
        await bavarian('install', { device_id: deviceId, platform: 'android', installed_at: iso(at + MIN) });
        await bavarian('events', { device_id: deviceId, events: spread(at, 6, 10).map((time) => ({ name: 'session_start', occurred_at: iso(time) })) });
        await clicks(org.orgId, spread(at, 25, 10), { region: 'California' });
        const [stored] = await db.query<{ c: string; i: string; e: string }>(
          `SELECT (SELECT region FROM clicks WHERE org_id = $1 AND link_id IS NOT NULL) AS c,
                  (SELECT region FROM installs WHERE org_id = $1) AS i,
                  (SELECT min(region) FROM events WHERE org_id = $1) AS e`,
          [org.orgId],
        );
        expect(stored).toEqual({ c: 'Bavaria', i: 'Bavaria', e: 'Bavaria' });
        await mirrored<{ n: number }>(t, 'SELECT count(*) AS n FROM events WHERE org_id = $1', [org.orgId], (rows) => Number(rows[0]?.n) === 6);
        await mirrored<{ n: number }>(t, 'SELECT count(*) AS n FROM installs WHERE org_id = $1', [org.orgId], (rows) => Number(rows[0]?.n) === 1);
        await mirroredClicks(org.orgId);
        await Bun.sleep(Math.max(0, clickedAt + 2100 - Date.now()));
        const airings = [
          { network: 'BR', region: 'BAVARIA', aired_at: iso(at), window_min: 15 },
          { network: 'KCAL', region: 'california', aired_at: iso(at), window_min: 15 },
          { network: 'NDR', region: 'Lower Saxony', aired_at: iso(at), window_min: 15 },
        ];
        expect(await body(await post(org.auth, { airings }))).toEqual({ accepted: 3, attributed_airings: 2 });
        const byNetwork = Object.fromEntries((await list(org.auth)).data.map((airing: { network: string }) => [airing.network, airing]));
        expect(byNetwork.BR).toMatchObject({ region: 'BAVARIA', window_count: 8, attributed: true });
        expect(byNetwork.KCAL).toMatchObject({ window_count: 25, attributed: true });
        expect(byNetwork.NDR).toMatchObject({ window_count: 0, lift: 0, attributed: false });
      });
    });

    describe('errors', () => {
      test.each([
        [{ airings: [] }, 'airings'],
        [{}, 'airings'],
        [{ airings: [{ aired_at: '2026-01-01T10:00:00Z' }] }, 'airings.0.network'],
        [{ airings: [{ network: '', aired_at: '2026-01-01T10:00:00Z' }] }, 'airings.0.network'],
        [{ airings: [{ network: 'A' }] }, 'airings.0.aired_at'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00' }] }, 'airings.0.aired_at'],
        [{ airings: [{ network: 'A', aired_at: 'last night' }] }, 'airings.0.aired_at'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', window_min: 1 }] }, 'airings.0.window_min'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', window_min: 61 }] }, 'airings.0.window_min'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', window_min: 2.5 }] }, 'airings.0.window_min'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', window_min: '10' }] }, 'airings.0.window_min'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', cost: -0.01 }] }, 'airings.0.cost'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', spot_length_sec: 0 }] }, 'airings.0.spot_length_sec'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', region: '' }] }, 'airings.0.region'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', region: '   ' }] }, 'airings.0.region'],
        [{ airings: [{ network: 'A', aired_at: '2026-01-01T10:00:00Z', channel: 'x' }] }, 'airings.0.channel'],
      ])('400 for %j names %s', async (input, field) => {
        const org = await orgWithKey(db);
        const res = await post(org.auth, input);
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors)).toContain(field);
        expect(await storedCount(org.orgId)).toBe(0);
      });

      test('an airing whose window has not ended is refused with the rest of its batch', async () => {
        const org = await orgWithKey(db);
        const soon = Date.now() - 5 * MIN;
        const res = await post(org.auth, { airings: [{ network: 'A', aired_at: iso(T) }, { network: 'B', aired_at: iso(soon) }] });
        expect(res.status).toBe(400);
        expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { 'airings.1.aired_at': [WINDOW_NOT_OVER] } });
        expect(await storedCount(org.orgId)).toBe(0);
        expect(await body(await post(org.auth, { airings: [{ network: 'B', aired_at: iso(soon), window_min: 4 }] }))).toEqual({ accepted: 1, attributed_airings: 0 });
      });

      test('more than 5000 airings is a 400; 5000 are one import', async () => {
        const org = await orgWithKey(db);
        const airings = (n: number) => Array.from({ length: n }, (_, i) => ({ network: `N${i % 7}`, aired_at: iso(T - (i % 600) * 7 * MIN) }));
        expect((await post(org.auth, { airings: airings(5001) })).status).toBe(400);
        expect(await storedCount(org.orgId)).toBe(0);
        expect(await body(await post(org.auth, { airings: airings(5000) }))).toEqual({ accepted: 5000, attributed_airings: 0 });
        expect(await storedCount(org.orgId)).toBe(5000);
      });

      test.each([['?limit=0'], ['?limit=1001'], ['?limit=abc'], ['?limit=2.5']])('GET %s is a 400', async (query) => {
        const org = await orgWithKey(db);
        const res = await t.request(`/api/v1/tv-airings${query}`, { headers: org.auth });
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['limit']);
      });
    });

    describe('list', () => {
      test('newest airing first, limit applies, default 100', async () => {
        const org = await orgWithKey(db);
        const airings = Array.from({ length: 105 }, (_, i) => ({ network: `N${i}`, aired_at: iso(T - i * 3 * MIN) }));
        await post(org.auth, { airings: [...airings].reverse() });
        const all = (await list(org.auth)).data;
        expect(all).toHaveLength(100);
        expect(all.slice(0, 3).map((airing: { network: string }) => airing.network)).toEqual(['N0', 'N1', 'N2']);
        expect((await list(org.auth, '?limit=2')).data.map((airing: { network: string }) => airing.network)).toEqual(['N0', 'N1']);
      });

      test('the import is audited with the key', async () => {
        const org = await orgWithKey(db);
        await post(org.auth, { airings: [{ network: 'A', aired_at: iso(T) }] });
        const audits = await db.query<Record<string, unknown>>("SELECT action, api_key_id, detail FROM audit_log WHERE org_id = $1 AND entity = 'tv_airing'", [org.orgId]);
        expect(audits).toEqual([{ action: 'import', api_key_id: org.keyId, detail: { accepted: 1, attributed: 0, rewritten: 0 } }]);
      });
    });

    describe('security', () => {
      test("another organization's traffic never counts, and its airings are neither listed nor rewritten", async () => {
        const org = await orgWithKey(db);
        const other = await orgWithKey(db, 'Other');
        await clicks(other.orgId, [...spread(T - 30 * MIN, 30, 30), ...spread(T, 60, 10)]);
        await mirroredClicks(other.orgId);
        expect(await body(await post(other.auth, { airings: [{ network: 'Theirs', aired_at: iso(T) }] }))).toEqual({ accepted: 1, attributed_airings: 1 });
        expect(await body(await post(org.auth, { airings: [{ network: 'Mine', aired_at: iso(T) }] }))).toEqual({ accepted: 1, attributed_airings: 0 });
        expect((await list(org.auth)).data).toEqual([expect.objectContaining({ network: 'Mine', window_count: 0, baseline_per_min: 0, lift: 0 })]);
        expect((await list(other.auth)).data).toEqual([expect.objectContaining({ network: 'Theirs', baseline_per_min: 1, window_count: 60, lift: 50 })]);
      });

      test("another organization's campaign is not linked", async () => {
        const org = await orgWithKey(db);
        const other = await orgWithKey(db, 'Other');
        const theirs = await insertCampaign(db, other.orgId, { externalId: 'their-tv' });
        await post(org.auth, { airings: [{ network: 'A', aired_at: iso(T), campaign_id: theirs.campaignId }, { network: 'B', aired_at: iso(T), campaign_external_id: 'their-tv' }] });
        expect((await list(org.auth)).data.map((airing: { campaign_id: string | null }) => airing.campaign_id)).toEqual([null, null]);
      });

      test('401 without a key or with a revoked one, on both methods; 405 on others', async () => {
        const airings = [{ network: 'A', aired_at: iso(T) }];
        expect((await post({}, { airings })).status).toBe(401);
        expect((await t.request('/api/v1/tv-airings')).status).toBe(401);
        const org = await orgWithKey(db);
        await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [org.keyId]);
        expect((await post(org.auth, { airings })).status).toBe(401);
        expect((await t.request('/api/v1/tv-airings', { headers: org.auth })).status).toBe(401);
        expect(await storedCount(org.orgId)).toBe(0);
        expect((await t.request('/api/v1/tv-airings', { method: 'DELETE', headers: org.auth })).status).toBe(405);
      });
    });
  });
}
