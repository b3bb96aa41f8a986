import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { UNKNOWN_APP } from '../../src/growth/impressions.service';
import { TIMESTAMP_ERROR } from '../../src/shared/timestamp';
import { body, poster, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign, orgWithKey } from '../support/fixtures';
import { hashedDeviceId, hoursAgo, sdkApp } from '../support/sdk-fixtures';
import { sdkCall, tablesContaining } from '../sdk/support';

interface StoredImpression {
  campaign_id: string | null;
  app_id: string | null;
  creative_id: string | null;
  placement: string | null;
  partner: string | null;
  ip_day_hash: string;
  household_hash: string;
  user_agent: string | null;
  os: string | null;
  device_type: string | null;
  country: string | null;
  source: string;
  created_at: Date;
}

for (const backend of backends()) {
  describe(`POST /api/v1/impressions on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const { ipHasher } = t.services;
    const post = poster(t, '/api/v1/impressions');
    const stored = (orgId: string) =>
      db.query<StoredImpression>(
        `SELECT campaign_id, app_id, creative_id, placement, partner, ip_day_hash, household_hash, user_agent, os, device_type, country,
                source, created_at
           FROM impressions WHERE org_id = $1 ORDER BY created_at, id`,
        [orgId],
      );

    describe('happy', () => {
      test('stores each impression with the IP-day and household hashes of /i and answers {accepted}', async () => {
        const org = await orgWithKey(db);
        const app = await sdkApp(db, org.orgId);
        const byId = await insertCampaign(db, org.orgId, { appId: app.appId });
        await insertCampaign(db, org.orgId, { externalId: 'ctv-77' });
        const res = await post(org.auth, {
          impressions: [
            {
              campaign_id: byId.campaignId,
              partner: 'ctv-net',
              creative_id: 'cr-1',
              placement: 'pre-roll',
              ip: '198.51.100.77',
              user_agent: 'Roku/DVP-12.5',
              os: 'Roku OS',
              device_type: 'smarttv',
              country: 'de',
              ts: '2026-03-10T01:30:00+05:30',
            },
            { campaign_external_id: 'ctv-77', ip: '8.8.8.8', ts: '2026-03-09T23:59:59.999Z' },
          ],
        });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ accepted: 2 });
        const [first, second] = await stored(org.orgId);
        const firstAt = new Date('2026-03-09T20:00:00.000Z');
        expect(first).toEqual({
          campaign_id: byId.campaignId,
          app_id: app.appId,
          creative_id: 'cr-1',
          placement: 'pre-roll',
          partner: 'ctv-net',
          ip_day_hash: ipHasher.ipDay('198.51.100.77', firstAt),
          household_hash: ipHasher.household('198.51.100.77'),
          user_agent: 'Roku/DVP-12.5',
          os: 'Roku OS',
          device_type: 'smarttv',
          country: 'DE',
          source: 'import',
          created_at: firstAt,
        });
        expect(second).toMatchObject({ app_id: null, country: 'US', ip_day_hash: ipHasher.ipDay('8.8.8.8', new Date('2026-03-09T12:00:00Z')) });
        expect(second!.household_hash).toBe(ipHasher.household('8.8.8.9'));
        // The hash is the impression's UTC day: the next day's hash differs.
        expect(second!.ip_day_hash).not.toBe(ipHasher.ipDay('8.8.8.8', new Date('2026-03-10T00:00:00Z')));
      });

      test('the raw address is stored nowhere; IPv6 is hashed in its one spelling with its /48 household', async () => {
        const org = await orgWithKey(db);
        const ts = '2026-04-01T08:00:00Z';
        expect((await post(org.auth, { impressions: [{ ip: '198.51.100.231', ts }, { ip: '2001:DB8:AA:0:0:0:0:5', ts }] })).status).toBe(200);
        expect(await tablesContaining(db, '198.51.100.231')).toEqual([]);
        const [, v6] = await stored(org.orgId);
        expect(v6!.ip_day_hash).toBe(ipHasher.ipDay('2001:db8:aa::5', new Date(ts)));
        expect(v6!.household_hash).toBe(ipHasher.household('2001:db8:aa:ffff::1'));
      });

      test('ts absent or ahead of the clock is now; unknown campaigns are stored without one', async () => {
        const org = await orgWithKey(db);
        const before = Date.now();
        const res = await post(org.auth, {
          impressions: [{ ip: '192.0.2.1' }, { ip: '192.0.2.2', ts: '2999-01-01T00:00:00Z' }, { ip: '192.0.2.3', campaign_id: 'nope' }, { ip: '192.0.2.4', campaign_external_id: 'nope' }],
        });
        expect(await body(res)).toEqual({ accepted: 4 });
        const rows = await stored(org.orgId);
        expect(rows.map((row) => row.campaign_id)).toEqual([null, null, null, null]);
        for (const row of rows) {
          expect(row.created_at.getTime()).toBeGreaterThanOrEqual(before - 1);
          expect(row.created_at.getTime()).toBeLessThanOrEqual(Date.now());
        }
      });

      test('not idempotent: the same call twice stores its impressions twice', async () => {
        const org = await orgWithKey(db);
        const call = { impressions: [{ ip: '192.0.2.20', ts: '2026-04-02T08:00:00Z', partner: 'p' }] };
        expect(await body(await post(org.auth, call))).toEqual({ accepted: 1 });
        expect(await body(await post(org.auth, call))).toEqual({ accepted: 1 });
        const rows = await stored(org.orgId);
        expect(rows).toHaveLength(2);
        expect(rows[0]!.ip_day_hash).toBe(rows[1]!.ip_day_hash);
      });

      test('5000 impressions in one call, audited with the key', async () => {
        const org = await orgWithKey(db);
        const { campaignId } = await insertCampaign(db, org.orgId);
        const impressions = Array.from({ length: 5000 }, (_, i) => ({ campaign_id: i % 2 ? campaignId : 'unknown', ip: `10.1.${i >> 8}.${i & 255}` }));
        expect(await body(await post(org.auth, { impressions }))).toEqual({ accepted: 5000 });
        expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM impressions WHERE org_id = $1', [org.orgId]))[0]!.n).toBe(5000);
        const audits = await db.query<Record<string, unknown>>("SELECT action, api_key_id, detail FROM audit_log WHERE org_id = $1 AND entity = 'impression'", [org.orgId]);
        expect(audits).toEqual([{ action: 'import', api_key_id: org.keyId, detail: { accepted: 5000, without_campaign: 2500 } }]);
      });
    });

    describe('attribution', () => {
      test('an imported impression makes an SDK install from the same IP VIEW_THROUGH to its campaign', async () => {
        const org = await orgWithKey(db);
        const app = await sdkApp(db, org.orgId, { platform: 'android' });
        const { campaignId } = await insertCampaign(db, org.orgId, { externalId: 'vt-1' });
        await post(org.auth, { impressions: [{ campaign_external_id: 'vt-1', ip: '198.51.100.40', ts: hoursAgo(new Date(), 2).toISOString() }] });
        const res = await sdkCall(t, app.sdkKey, '198.51.100.40')('install', { device_id: hashedDeviceId(), platform: 'android' });
        expect(res.status).toBe(201);
        expect((await body(res)).attribution).toMatchObject({ method: 'VIEW_THROUGH', campaign: campaignId, click_id: null });
      });

      test('from another address of the same /24, a TV install is HOUSEHOLD', async () => {
        const org = await orgWithKey(db);
        const app = await sdkApp(db, org.orgId, { platform: 'roku' });
        const { campaignId } = await insertCampaign(db, org.orgId);
        await post(org.auth, { impressions: [{ campaign_id: campaignId, ip: '198.51.100.41', ts: hoursAgo(new Date(), 30).toISOString() }] });
        const res = await sdkCall(t, app.sdkKey, '198.51.100.199')('install', { device_id: hashedDeviceId(), platform: 'roku' });
        expect((await body(res)).attribution).toMatchObject({ method: 'HOUSEHOLD', campaign: campaignId });
      });

      test("another organization's impressions never attribute", async () => {
        const org = await orgWithKey(db);
        const other = await orgWithKey(db, 'Other');
        const app = await sdkApp(db, org.orgId, { platform: 'roku' });
        const { campaignId } = await insertCampaign(db, other.orgId);
        await post(other.auth, { impressions: [{ campaign_id: campaignId, ip: '198.51.100.42' }] });
        const res = await sdkCall(t, app.sdkKey, '198.51.100.42')('install', { device_id: hashedDeviceId(), platform: 'roku' });
        expect((await body(res)).attribution).toMatchObject({ method: 'ORGANIC', campaign: null });
      });
    });

    describe('errors', () => {
      test('one bad row names itself and nothing of the batch is stored', async () => {
        const org = await orgWithKey(db);
        const impressions = Array.from({ length: 20 }, (_, i) => ({ ip: `192.0.2.${i + 1}` }));
        impressions[17] = { ip: '192.0.2.300' };
        const res = await post(org.auth, { impressions });
        expect(res.status).toBe(400);
        expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { 'impressions.17.ip': ['must be an IPv4 or IPv6 address, such as 203.0.113.7 or 2001:db8::7'] } });
        expect(await stored(org.orgId)).toEqual([]);
      });

      test.each([
        [{ impressions: [] }, 'impressions'],
        [{}, 'impressions'],
        [{ impressions: [{}] }, 'impressions.0.ip'],
        [{ impressions: [{ ip: '8.8.8' }] }, 'impressions.0.ip'],
        [{ impressions: [{ ip: '0x7f.0.0.1' }] }, 'impressions.0.ip'],
        [{ impressions: [{ ip: ' 8.8.8.8' }] }, 'impressions.0.ip'],
        [{ impressions: [{ ip: 'fe80::1%eth0' }] }, 'impressions.0.ip'],
        [{ impressions: [{ ip: '8.8.8.8/24' }] }, 'impressions.0.ip'],
        [{ impressions: [{ ip: 12345 }] }, 'impressions.0.ip'],
        [{ impressions: [{ ip: '8.8.8.8', country: 'XX' }] }, 'impressions.0.country'],
        [{ impressions: [{ ip: '8.8.8.8', country: 'USA' }] }, 'impressions.0.country'],
        [{ impressions: [{ ip: '8.8.8.8', partner: 'p'.repeat(65) }] }, 'impressions.0.partner'],
        [{ impressions: [{ ip: '8.8.8.8', ts: 'yesterday' }] }, 'impressions.0.ts'],
        [{ impressions: [{ ip: '8.8.8.8', ts: '2026-03-10T10:00:00' }] }, 'impressions.0.ts'],
        [{ impressions: [{ ip: '8.8.8.8', campaign_id: null }] }, 'impressions.0.campaign_id'],
        [{ impressions: [{ ip: '8.8.8.8', cookie: 'x' }] }, 'impressions.0.cookie'],
        [{ impressions: [{ ip: '8.8.8.8' }], extra: 1 }, 'extra'],
      ])('400 for %j names %s', async (input, field) => {
        const org = await orgWithKey(db);
        const res = await post(org.auth, input);
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors)).toContain(field);
        expect(await stored(org.orgId)).toEqual([]);
      });

      test('a bad ts says what a timestamp is', async () => {
        const org = await orgWithKey(db);
        const res = await post(org.auth, { impressions: [{ ip: '8.8.8.8', ts: '2026-02-30T10:00:00Z' }] });
        expect((await body(res)).error.fieldErrors).toEqual({ 'impressions.0.ts': [TIMESTAMP_ERROR] });
      });

      test('more than 5000 is a 400 and stores nothing', async () => {
        const org = await orgWithKey(db);
        const res = await post(org.auth, { impressions: Array.from({ length: 5001 }, () => ({ ip: '192.0.2.9' })) });
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors.impressions).toBeArray();
        expect(await stored(org.orgId)).toEqual([]);
      });
    });

    describe('security', () => {
      test("an app_id of another organization reads as unknown: 400 and nothing stored", async () => {
        const org = await orgWithKey(db);
        const other = await orgWithKey(db, 'Other');
        const theirs = await sdkApp(db, other.orgId);
        const mine = await sdkApp(db, org.orgId);
        for (const appId of [theirs.appId, 'no-such-app']) {
          const res = await post(org.auth, { impressions: [{ ip: '192.0.2.10', app_id: mine.appId }, { ip: '192.0.2.11', app_id: appId }] });
          expect(res.status).toBe(400);
          expect((await body(res)).error.fieldErrors).toEqual({ 'impressions.1.app_id': [UNKNOWN_APP] });
        }
        expect(await stored(org.orgId)).toEqual([]);
        expect(await body(await post(org.auth, { impressions: [{ ip: '192.0.2.10', app_id: mine.appId }] }))).toEqual({ accepted: 1 });
      });

      test("another organization's campaign is not linked, by id or external id", async () => {
        const org = await orgWithKey(db);
        const other = await orgWithKey(db, 'Other');
        const theirs = await insertCampaign(db, other.orgId, { externalId: 'shared-ext' });
        await post(org.auth, { impressions: [{ ip: '192.0.2.12', campaign_id: theirs.campaignId }, { ip: '192.0.2.13', campaign_external_id: 'shared-ext' }] });
        expect((await stored(org.orgId)).map((row) => row.campaign_id)).toEqual([null, null]);
        expect(await stored(other.orgId)).toEqual([]);
      });

      test('401 without a key or with a revoked one; 405 on other methods', async () => {
        const impressions = [{ ip: '192.0.2.14' }];
        expect((await post({}, { impressions })).status).toBe(401);
        expect((await post({ authorization: 'Bearer svc_live_not-a-key' }, { impressions })).status).toBe(401);
        const org = await orgWithKey(db);
        await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [org.keyId]);
        expect((await post(org.auth, { impressions })).status).toBe(401);
        expect(await stored(org.orgId)).toEqual([]);
        expect((await t.request('/api/v1/impressions', { method: 'GET', headers: org.auth })).status).toBe(405);
      });
    });
  });
}
