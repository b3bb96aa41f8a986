import '../../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { newId } from '../../../src/shared/ids';
import { body, testApp } from '../../support/app';
import { insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { orgWithKey } from '../../support/fixtures';
import { cookieOf, expectSecurityHeaders } from '../../support/http';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine.
setDefaultTimeout(120_000);

const HOUR = 60 * 60 * 1000;
const ago = (ms: number) => new Date(Date.now() - ms);

for (const backend of backends()) {
  describe(`GET /api/dashboard/ippool/lookup on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const account = async () => {
      const res = await t.request('/register', { method: 'POST', json: { email: `u${newId().toLowerCase()}@example.com`, password: 'correct horse', organization: 'Acme' } });
      expect(res.status).toBe(201);
      return { cookie: cookieOf(res), orgId: (await body(res)).org_id as string };
    };
    const [alice, mallory] = [await account(), await account()];
    const lookup = (ip: string, cookie = alice.cookie) => t.request(`/api/dashboard/ippool/lookup?ip=${encodeURIComponent(ip)}`, { headers: { cookie } });

    describe('happy', () => {
      test('an IPv4 datacenter address: pool, geo, keys and this organization’s last 24 hours', async () => {
        const ip = '8.8.8.8';
        const newest = ago(HOUR);
        await insertClick(db, { orgId: alice.orgId, ip, createdAt: newest, riskReasons: ['datacenter_ip'] });
        await insertClick(db, { orgId: alice.orgId, ip, createdAt: ago(2 * HOUR), dropReason: 'bot', riskReasons: ['datacenter_ip', 'unverified_bot'] });
        await insertClick(db, { orgId: alice.orgId, ip, createdAt: ago(3 * HOUR), riskReasons: ['datacenter_ip', 'no_dwell'] });
        await insertClick(db, { orgId: alice.orgId, ip, createdAt: ago(4 * HOUR), dropReason: 'verified_bot', isBot: true });
        await insertClick(db, { orgId: alice.orgId, ip, createdAt: ago(30 * HOUR), dropReason: 'bot', riskReasons: ['webdriver', 'unverified_bot'] });
        await insertClick(db, { orgId: alice.orgId, ip: '8.8.4.4', createdAt: ago(HOUR) });
        const res = await lookup(ip);
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        expect(await body(res)).toEqual({
          ip,
          pool: { type: 'datacenter', asn: 15169, as_org: 'Google LLC', verified_bot: null },
          geo: { country: 'US', region: 'California', city: 'Mountain View' },
          rate_limit_key: '8.8.8.8',
          exclusion: { ip_block: '8.8.8.8' },
          intel: { clicks_24h: 4, invalid_clicks_24h: 2, last_seen: newest.toISOString(), risk_score: 100 },
        });
      });

      test('an IPv6 address in any spelling: the /64 as rate-limit key and exclusion block', async () => {
        const stored = '2607:fb90:1234::1';
        const seen = ago(5 * HOUR);
        await insertClick(db, { orgId: alice.orgId, ip: stored, createdAt: seen, dropReason: 'bot', riskReasons: ['unverified_bot'] });
        const res = await lookup('2607:FB90:1234:0:0:0:0:0001');
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({
          ip: stored,
          pool: { type: 'mobile', asn: 21928, as_org: 'T-Mobile USA, Inc.', verified_bot: null },
          geo: { country: 'US', region: expect.any(String), city: expect.any(String) },
          rate_limit_key: '2607:fb90:1234:0::/64',
          exclusion: { ip_block: '2607:fb90:1234::/64' },
          intel: { clicks_24h: 1, invalid_clicks_24h: 1, last_seen: seen.toISOString(), risk_score: 60 },
        });
      });

      test('an IPv4-mapped IPv6 address is answered as the IPv4 address', async () => {
        await insertClick(db, { orgId: alice.orgId, ip: '73.15.20.30', createdAt: ago(HOUR) });
        const mapped = await body(await lookup('::ffff:73.15.20.30'));
        const plain = await body(await lookup('73.15.20.30'));
        expect(mapped).toEqual(plain);
        expect(mapped).toMatchObject({ ip: '73.15.20.30', pool: { type: 'residential', asn: 7922 }, rate_limit_key: '73.15.20.30', intel: { clicks_24h: 1 } });
      });

      test('a verified crawler is named; an address nobody clicked from has empty intel', async () => {
        expect((await body(await lookup('66.249.64.1'))).pool).toMatchObject({ verified_bot: 'googlebot', asn: 15169, type: 'datacenter' });
        expect(await body(await lookup('10.20.30.40'))).toEqual({
          ip: '10.20.30.40',
          pool: { type: null, asn: null, as_org: null, verified_bot: null },
          geo: { country: null, region: null, city: null },
          rate_limit_key: '10.20.30.40',
          exclusion: { ip_block: '10.20.30.40' },
          intel: { clicks_24h: 0, invalid_clicks_24h: 0, last_seen: null, risk_score: null },
        });
      });

      test('last_seen is the latest click even when older than 24 hours', async () => {
        const old = ago(72 * HOUR);
        await insertClick(db, { orgId: alice.orgId, ip: '1.1.1.1', createdAt: old });
        expect((await body(await lookup('1.1.1.1'))).intel).toEqual({ clicks_24h: 0, invalid_clicks_24h: 0, last_seen: old.toISOString(), risk_score: null });
      });
    });

    describe('error', () => {
      const notAddresses = ['', 'nope', 'example.com', '8.8.8.8/32', '2001:db8::/64', 'fe80::1%eth0', '[::1]', ' 8.8.8.8', '8.8.8', '999.1.1.1', '0x08.8.8.8', 'x'.repeat(300)];
      for (const text of notAddresses) {
        test(`${JSON.stringify(text.slice(0, 20))}: 400 naming ip`, async () => {
          const res = await lookup(text);
          expect(res.status).toBe(400);
          expectSecurityHeaders(res);
          const error = (await body(res)).error;
          expect(error.formErrors).toEqual([]);
          expect(Object.keys(error.fieldErrors)).toEqual(['ip']);
        });
      }

      test('no ip parameter: 400 naming ip; another method: 405', async () => {
        const res = await t.request('/api/dashboard/ippool/lookup', { headers: { cookie: alice.cookie } });
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['ip']);
        expect((await t.request('/api/dashboard/ippool/lookup?ip=8.8.8.8', { method: 'POST', headers: { cookie: alice.cookie } })).status).toBe(405);
      });
    });

    describe('security', () => {
      test('without a session, with a bad cookie or with an API key: 401, good input or bad', async () => {
        const { auth } = await orgWithKey(db);
        const credentials: Record<string, string>[] = [{}, { cookie: 'svc_session=forged' }, auth];
        for (const headers of credentials) {
          for (const ip of ['8.8.8.8', 'nope']) {
            const res = await t.request(`/api/dashboard/ippool/lookup?ip=${ip}`, { headers });
            expect(res.status).toBe(401);
            expectSecurityHeaders(res);
            expect(await body(res)).toEqual({ error: 'unauthorized' });
          }
        }
      });

      test('another organization’s clicks are never counted, either way', async () => {
        const ip = '9.9.9.9';
        await insertClick(db, { orgId: mallory.orgId, ip, createdAt: ago(HOUR), dropReason: 'bot', riskReasons: ['unverified_bot'] });
        await insertClick(db, { orgId: mallory.orgId, ip, createdAt: ago(2 * HOUR) });
        const seen = ago(3 * HOUR);
        await insertClick(db, { orgId: alice.orgId, ip, createdAt: seen });
        expect((await body(await lookup(ip))).intel).toEqual({ clicks_24h: 1, invalid_clicks_24h: 0, last_seen: seen.toISOString(), risk_score: 0 });
        const theirs = (await body(await lookup(ip, mallory.cookie))).intel;
        expect(theirs).toMatchObject({ clicks_24h: 2, invalid_clicks_24h: 1 });
        expect(theirs.last_seen).not.toBe(seen.toISOString());
        expect((await body(await lookup('8.8.8.8', mallory.cookie))).intel).toEqual({ clicks_24h: 0, invalid_clicks_24h: 0, last_seen: null, risk_score: null });
      });
    });
  });
}
