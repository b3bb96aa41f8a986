import { describe, expect, test } from 'bun:test';
import { campaignKeyPiece, hash64Hex } from '../../src/privacy-sandbox/key-pieces';
import { body, testApp, TEST_BASE_URL } from '../support/app';
import { backends } from '../support/db';
import { insertApp, insertCampaign, insertLink, orgWithKey, verifiedDomain } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { validateSourceHeader } from './ara-validator';
import { ARA, countRows, expectEmptyRegistration, registerSource } from './support';

const HEADER = 'attribution-reporting-register-source';

for (const backend of backends()) {
  describe(`GET /.well-known/attribution-reporting/register-source on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const org = await orgWithKey(db);
    const other = await orgWithKey(db, 'Other');
    const register = (query: string, headers: Record<string, string> = {}) => registerSource(t, query, headers);
    const headerOf = async (response: Response) => {
      await expectEmptyRegistration(response);
      const value = response.headers.get(HEADER);
      expect(value).not.toBeNull();
      expect(validateSourceHeader(value!)).toEqual([]);
      return JSON.parse(value!);
    };
    const storedSource = async (id: string) =>
      (await db.query<Record<string, any>>('SELECT source_event_id::text AS source_event_id, org_id, link_id, campaign_id, destination, created_at FROM ara_sources WHERE source_event_id = $1::numeric', [id]))[0];
    /** No header, and not a row more than before. */
    const expectNothingRegistered = async (response: Response, before: number) => {
      await expectEmptyRegistration(response);
      expect(response.headers.get(HEADER)).toBeNull();
      expect(await countRows(db, 'ara_sources')).toBe(before);
    };

    describe('happy', () => {
      test("a link's source: its destination's site, its campaign's key piece, recorded under its organization", async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        const { slug, linkId } = await insertLink(db, org.orgId, { campaignId, destination: 'https://shop.example.co.uk/landing?a=1' });
        const header = await headerOf(await register(`?link=${slug}`));
        expect(header).toEqual({
          source_event_id: expect.stringMatching(/^(0|[1-9][0-9]*)$/),
          destination: 'https://example.co.uk',
          expiry: '2592000',
          priority: '0',
          filter_data: { campaign: [hash64Hex(campaignId)], link: [hash64Hex(linkId)] },
          aggregation_keys: { campaign: campaignKeyPiece(campaignId) },
        });
        expect(await storedSource(header.source_event_id)).toMatchObject({
          source_event_id: header.source_event_id,
          org_id: org.orgId,
          link_id: linkId,
          campaign_id: campaignId,
          destination: 'https://example.co.uk',
        });
      });

      test('each registration gets its own source_event_id, stored as the full unsigned 64-bit value', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const ids = [];
        for (let i = 0; i < 5; i++) ids.push((await headerOf(await register(`?link=${slug}`))).source_event_id);
        expect(new Set(ids).size).toBe(5);
        for (const id of ids) expect((await storedSource(id))!.source_event_id).toBe(id);
      });

      test('a click (Attribution-Reporting-Eligible: navigation-source) gets priority 100, a view 0', async () => {
        const { slug } = await insertLink(db, org.orgId);
        expect((await headerOf(await register(`?link=${slug}`, { 'attribution-reporting-eligible': 'navigation-source' }))).priority).toBe('100');
        expect((await headerOf(await register(`?link=${slug}`, { 'attribution-reporting-eligible': 'event-source, trigger' }))).priority).toBe('0');
      });

      test("a campaign's source: the site of its newest active link, else of its app", async () => {
        const { appId } = await insertApp(db, org.orgId);
        await db.query('UPDATE apps SET store_url = $1 WHERE id = $2', ['https://play.google.com/store/apps/details?id=com.example', appId]);
        const { campaignId } = await insertCampaign(db, org.orgId, { appId });
        const byApp = await headerOf(await register(`?campaign=${campaignId}`));
        expect(byApp.destination).toBe('https://google.com');
        expect(byApp.filter_data).toEqual({ campaign: [hash64Hex(campaignId)] });
        await insertLink(db, org.orgId, { campaignId, destination: 'https://old.example.net/' });
        await insertLink(db, org.orgId, { campaignId, destination: 'https://www.newest.example.org/p' });
        await insertLink(db, org.orgId, { campaignId, destination: 'https://paused.example.com/', status: 'paused' });
        const byLink = await headerOf(await register(`?campaign=${campaignId}`));
        expect(byLink.destination).toBe('https://example.org');
        expect(await storedSource(byLink.source_event_id)).toMatchObject({ org_id: org.orgId, link_id: null, campaign_id: campaignId });
      });

      test('a link without a usable destination falls back to its campaign', async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        await insertLink(db, org.orgId, { campaignId, destination: 'https://advertiser.example.com/' });
        const { slug } = await insertLink(db, org.orgId, { campaignId, destination: 'http://insecure.example.com/' });
        expect((await headerOf(await register(`?link=${slug}`))).destination).toBe('https://example.com');
      });

      test('a link named with its own campaign, a link without a campaign, a smart link', async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        const tied = await insertLink(db, org.orgId, { campaignId });
        expect((await headerOf(await register(`?link=${tied.slug}&campaign=${campaignId}`))).aggregation_keys).toEqual({ campaign: campaignKeyPiece(campaignId) });
        const loose = await insertLink(db, org.orgId);
        const header = await headerOf(await register(`?link=${loose.slug}`));
        expect(header.aggregation_keys).toEqual({});
        expect(header.filter_data).toEqual({ link: [hash64Hex(loose.linkId)] });
        expect((await storedSource(header.source_event_id))!.campaign_id).toBeNull();
        const smart = await insertLink(db, org.orgId, { kind: 'smart', destination: 'https://smart.example.com/' });
        expect((await headerOf(await register(`?link=${smart.slug}`))).destination).toBe('https://example.com');
      });

      test('a link on a verified custom domain registers on that host', async () => {
        await verifiedDomain(db, org.orgId, 'go.brand.example');
        const { slug } = await insertLink(db, org.orgId, { domain: 'go.brand.example' });
        const res = await registerSource(t, `?link=${slug}`, {}, 'http://go.brand.example/.well-known/attribution-reporting');
        expect((await headerOf(res)).destination).toBe('https://example.com');
      });
    });

    describe('error', () => {
      test('no parameter, or only empty ones: 200, no header, nothing recorded', async () => {
        const before = await countRows(db, 'ara_sources');
        await expectNothingRegistered(await register(''), before);
        await expectNothingRegistered(await register('?link=&campaign='), before);
      });

      test('an unknown slug or campaign, a paused link: no header, nothing recorded', async () => {
        const before = await countRows(db, 'ara_sources');
        const { slug } = await insertLink(db, org.orgId, { status: 'paused' });
        await expectNothingRegistered(await register('?link=no-such-slug'), before);
        await expectNothingRegistered(await register('?campaign=01J0000000000000000000NONE'), before);
        await expectNothingRegistered(await register(`?link=${slug}`), before);
      });

      test('no destination the browser would take anywhere: no header, nothing recorded', async () => {
        const before = await countRows(db, 'ara_sources');
        const { campaignId } = await insertCampaign(db, org.orgId);
        const { slug } = await insertLink(db, org.orgId, { campaignId, destination: 'http://plain.example.com/' });
        await expectNothingRegistered(await register(`?link=${slug}`), before);
        await expectNothingRegistered(await register(`?campaign=${campaignId}`), before);
      });

      test('a known slug with an unknown campaign registers nothing', async () => {
        const before = await countRows(db, 'ara_sources');
        const { slug } = await insertLink(db, org.orgId);
        await expectNothingRegistered(await register(`?link=${slug}&campaign=unknown`), before);
      });

      test('an over-long parameter is a 400 in the spec shape and records nothing', async () => {
        const before = await countRows(db, 'ara_sources');
        const res = await register(`?link=${'a'.repeat(1025)}`);
        expect(res.status).toBe(400);
        expectSecurityHeaders(res);
        expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['link']);
        expect(await countRows(db, 'ara_sources')).toBe(before);
      });

      test('other methods answer 405', async () => {
        const res = await t.request(`${ARA}/register-source`, { method: 'POST' });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toContain('GET');
        expectSecurityHeaders(res);
      });
    });

    describe('security', () => {
      test("another organization's campaign with a link: no header, nothing recorded, the same answer as unknown", async () => {
        const before = await countRows(db, 'ara_sources');
        const { slug } = await insertLink(db, org.orgId);
        const { campaignId: foreign } = await insertCampaign(db, other.orgId);
        const crossed = await register(`?link=${slug}&campaign=${foreign}`);
        const unknown = await register(`?link=${slug}&campaign=unknown`);
        await expectNothingRegistered(crossed, before);
        expect([...crossed.headers.entries()].sort()).toEqual([...unknown.headers.entries()].sort());
      });

      test('a link tied to one campaign, named with another of the same organization, registers nothing', async () => {
        const before = await countRows(db, 'ara_sources');
        const { campaignId } = await insertCampaign(db, org.orgId);
        const { campaignId: otherCampaign } = await insertCampaign(db, org.orgId);
        const { slug } = await insertLink(db, org.orgId, { campaignId });
        await expectNothingRegistered(await register(`?link=${slug}&campaign=${otherCampaign}`), before);
      });

      test("a slug resolves only on its own host: not on the API host, not on another organization's domain", async () => {
        const before = await countRows(db, 'ara_sources');
        const { slug } = await insertLink(db, org.orgId);
        await expectNothingRegistered(await registerSource(t, `?link=${slug}`, {}, `${TEST_BASE_URL}/.well-known/attribution-reporting`), before);
        await verifiedDomain(db, other.orgId, 'go.other.example');
        const onOthers = await insertLink(db, other.orgId, { domain: 'go.other.example' });
        await expectNothingRegistered(await register(`?link=${onOthers.slug}`), before);
        // A domain nobody verified serves nothing (DOMAIN_VERIFICATION=dns, the default).
        const unverified = await insertLink(db, org.orgId, { domain: 'unverified.example' });
        await expectNothingRegistered(await registerSource(t, `?link=${unverified.slug}`, {}, 'http://unverified.example/.well-known/attribution-reporting'), before);
      });

      test('NUL and other hostile text in the parameters registers nothing and fails nothing', async () => {
        const before = await countRows(db, 'ara_sources');
        for (const query of ['?campaign=%00', '?link=%00', "?campaign=x'%20OR%201=1--", '?link=..%2F..%2Fetc']) {
          await expectNothingRegistered(await register(query), before);
        }
      });

      test('the header never carries ids, names or the destination URL beyond its site', async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        const { slug, linkId } = await insertLink(db, org.orgId, { campaignId, destination: 'https://shop.example.com/secret-path?token=abc' });
        const value = (await register(`?link=${slug}`)).headers.get(HEADER)!;
        for (const secret of [campaignId, linkId, org.orgId, 'secret-path', 'token', 'shop.']) expect(value).not.toContain(secret);
      });
    });
  });
}
