import { describe, expect, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import type { Db } from '../../src/db/db';
import { selectHotLinks } from '../../src/edge/hot-links.repo';
import { body, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertCampaign, insertLink, orgWithKey, verifiedDomain } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';

const HOT_LINK_FIELDS = [
  'slug', 'domain', 'kind', 'status', 'destination', 'expires_at', 'click_cap', 'rules', 'allowed_landing_hosts', 'clicks_24h', 'version',
].sort();
const HOUR = 60 * 60 * 1000;

/** `n` clicks on the link, `ageMs` old. */
const clicksOn = (db: Db, orgId: string, linkId: string, n: number, ageMs = 60_000) =>
  Promise.all(Array.from({ length: n }, () => insertClick(db, { orgId, linkId, createdAt: new Date(Date.now() - ageMs) })));

/** Sets when the link was last written, which orders links without clicks. */
const touched = (db: Db, linkId: string, at: Date) => db.query('UPDATE links SET updated_at = $2::timestamptz WHERE id = $1', [linkId, at.toISOString()]);

for (const backend of backends()) {
  describe(`GET /api/edge/links/hot on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const hot = (auth: Record<string, string>) => t.request('/api/edge/links/hot', { headers: auth });
    const slugsOf = async (auth: Record<string, string>) => (await body(await hot(auth))).map((link: { slug: string }) => link.slug);

    describe('happy', () => {
      test('each link as stored: tracking host as null, rules as stored, version the update time in ms', async () => {
        const org = await orgWithKey(db);
        const { campaignId } = await insertCampaign(db, org.orgId);
        const { linkId, slug } = await insertLink(db, org.orgId, { kind: 'smart', campaignId, destination: 'https://shop.example.com/fallback' });
        const rules = { version: 1, rules: [{ name: 'ios', if: { os: ['ios'] }, then: { store: 'https://apps.apple.com/app/id1' } }], fallback: { url: 'https://shop.example.com' } };
        await db.query(
          `UPDATE links SET rules = $2::text::jsonb, expires_at = '2030-01-02T03:04:05.678Z', click_cap = 500,
             allowed_landing_hosts = '["shop.example.com"]'::jsonb, updated_at = '2026-09-02T10:00:00.123456Z' WHERE id = $1`,
          [linkId, JSON.stringify(rules)],
        );
        await clicksOn(db, org.orgId, linkId, 2);
        const res = await hot(org.auth);
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        const links = await body(res);
        expect(links).toHaveLength(1);
        expect(Object.keys(links[0]).sort()).toEqual(HOT_LINK_FIELDS);
        expect(links[0]).toEqual({
          slug,
          domain: null,
          kind: 'smart',
          status: 'active',
          destination: 'https://shop.example.com/fallback',
          expires_at: '2030-01-02T03:04:05.678Z',
          click_cap: 500,
          rules,
          allowed_landing_hosts: ['shop.example.com'],
          clicks_24h: 2,
          version: Date.parse('2026-09-02T10:00:00.123Z'),
        });
      });

      test('a link without rules, cap or expiry has nulls; a verified custom domain is named', async () => {
        const org = await orgWithKey(db);
        const domain = `go-${org.orgId.slice(-8).toLowerCase()}.example.com`;
        await verifiedDomain(db, org.orgId, domain);
        const { slug } = await insertLink(db, org.orgId, { domain, status: 'paused' });
        const [link] = await body(await hot(org.auth));
        expect(link).toMatchObject({ slug, domain, kind: 'tracking', status: 'paused', expires_at: null, click_cap: null, rules: null, allowed_landing_hosts: null, clicks_24h: 0 });
      });

      test('ordered by clicks in the last 24 hours; older clicks do not count; links without clicks follow, newest update first', async () => {
        const org = await orgWithKey(db);
        const few = await insertLink(db, org.orgId);
        const many = await insertLink(db, org.orgId);
        const old = await insertLink(db, org.orgId);
        const quietNew = await insertLink(db, org.orgId);
        const quietOld = await insertLink(db, org.orgId);
        await clicksOn(db, org.orgId, few.linkId, 2);
        await clicksOn(db, org.orgId, many.linkId, 4, 23 * HOUR);
        // Ten clicks just outside the window: they count for nothing.
        await clicksOn(db, org.orgId, old.linkId, 10, 24 * HOUR + 60_000);
        await clicksOn(db, org.orgId, old.linkId, 1);
        await touched(db, quietNew.linkId, new Date(Date.now() - HOUR));
        await touched(db, quietOld.linkId, new Date(Date.now() - 2 * HOUR));
        await touched(db, old.linkId, new Date(Date.now() - 3 * HOUR));
        const links = await body(await hot(org.auth));
        expect(links.map((l: { slug: string; clicks_24h: number }) => [l.slug, l.clicks_24h])).toEqual([
          [many.slug, 4],
          [few.slug, 2],
          [old.slug, 1],
          [quietNew.slug, 0],
          [quietOld.slug, 0],
        ]);
      });

      test('at most 100 links, the clicked ones first', async () => {
        const org = await orgWithKey(db);
        const links = [];
        for (let i = 0; i < 105; i++) links.push(await insertLink(db, org.orgId));
        // The five links created first, and so updated longest ago, are the clicked ones.
        for (const [i, link] of links.slice(0, 5).entries()) await clicksOn(db, org.orgId, link.linkId, 5 - i);
        const answered = await body(await hot(org.auth));
        expect(answered).toHaveLength(100);
        expect(answered.slice(0, 5).map((l: { slug: string }) => l.slug)).toEqual(links.slice(0, 5).map((l) => l.slug));
        expect(answered.slice(5).every((l: { clicks_24h: number }) => l.clicks_24h === 0)).toBe(true);
      });

      test('version changes when the link is written through the API', async () => {
        const org = await orgWithKey(db);
        const created = await body(await t.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { destination: 'https://shop.example.com/a' } }));
        const [before] = await body(await hot(org.auth));
        expect(before.version).toBe(Date.parse(created.updated_at));
        await Bun.sleep(5);
        const patched = await t.request(`/api/v1/links/${created.id}`, { method: 'PATCH', headers: org.auth, json: { status: 'paused' } });
        expect(patched.status).toBe(200);
        const [after] = await body(await hot(org.auth));
        expect(after.status).toBe('paused');
        expect(after.version).toBeGreaterThan(before.version);
      });

      test('an organization without links gets an empty array', async () => {
        const org = await orgWithKey(db);
        const res = await hot(org.auth);
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual([]);
      });
    });

    describe('error', () => {
      test('a link on a custom domain not verified yet is left out, as /c does not serve it', async () => {
        const org = await orgWithKey(db);
        const { slug } = await insertLink(db, org.orgId);
        await insertLink(db, org.orgId, { domain: `unverified-${org.orgId.slice(-8).toLowerCase()}.example.com` });
        expect(await slugsOf(org.auth)).toEqual([slug]);
      });

      test('other methods answer 405', async () => {
        const org = await orgWithKey(db);
        const res = await t.request('/api/edge/links/hot', { method: 'POST', headers: org.auth, json: {} });
        expect(res.status).toBe(405);
        expectSecurityHeaders(res);
      });
    });

    describe('security', () => {
      test('no key, a malformed key, an unknown key or a revoked key: 401', async () => {
        const org = await orgWithKey(db);
        await insertLink(db, org.orgId);
        for (const auth of [{} as Record<string, string>, { authorization: 'Bearer nope' }, { authorization: `Bearer svc_live_${'x'.repeat(32)}` }]) {
          const res = await hot(auth);
          expect(res.status).toBe(401);
          expect(await body(res)).toEqual({ error: 'unauthorized' });
          expectSecurityHeaders(res);
        }
        expect((await hot(org.auth)).status).toBe(200);
        await revokeApiKey(db, org.orgId, org.keyId);
        const revoked = await hot(org.auth);
        expect(revoked.status).toBe(401);
        expect(await body(revoked)).toEqual({ error: 'unauthorized' });
      });

      test('the key is not taken from the query string', async () => {
        const org = await orgWithKey(db);
        expect((await t.request(`/api/edge/links/hot?api_key=${org.apiKey}`)).status).toBe(401);
      });

      test("another organization's links and clicks are never shown or counted", async () => {
        const mine = await orgWithKey(db, 'Mine');
        const theirs = await orgWithKey(db, 'Theirs');
        const own = await insertLink(db, mine.orgId);
        const foreign = await insertLink(db, theirs.orgId);
        await clicksOn(db, theirs.orgId, foreign.linkId, 5);
        await clicksOn(db, mine.orgId, own.linkId, 1);
        // A click of the other organization naming my link counts for neither.
        await insertClick(db, { orgId: theirs.orgId, linkId: own.linkId });
        expect((await body(await hot(mine.auth))).map((l: { slug: string; clicks_24h: number }) => [l.slug, l.clicks_24h])).toEqual([[own.slug, 1]]);
        expect((await body(await hot(theirs.auth))).map((l: { slug: string; clicks_24h: number }) => [l.slug, l.clicks_24h])).toEqual([[foreign.slug, 5]]);
      });
    });
  });
}

for (const backend of backends()) {
  describe(`GET /api/edge/links/hot with DOMAIN_VERIFICATION=off on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { DOMAIN_VERIFICATION: 'off' }, { mirror: false, workers: false });

    test('a link on any custom domain is listed', async () => {
      const org = await orgWithKey(db);
      const domain = `any-${org.orgId.slice(-8).toLowerCase()}.example.com`;
      const { slug } = await insertLink(db, org.orgId, { domain });
      const links = await body(await t.request('/api/edge/links/hot', { headers: org.auth }));
      expect(links.map((l: { slug: string; domain: string }) => [l.slug, l.domain])).toEqual([[slug, domain]]);
    });
  });
}
