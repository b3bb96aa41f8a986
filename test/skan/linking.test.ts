import { describe, expect, test } from 'bun:test';
import { body, testApp, type TestApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { APPLE_EXAMPLE_APP_ID, APPLE_EXAMPLES, postback40, testSigner, transactionId } from './support';

type Auth = Record<string, string>;

for (const backend of backends()) {
  describe(`SKAN postback linking on ${backend.name}`, async () => {
    const db = await backend.create();
    const signer = testSigner();
    const apple = await testApp(db, {}, { mirror: false, workers: false });
    const own = await testApp(db, { SKAN_PUBLIC_KEY: signer.base64 }, { mirror: false, workers: false });
    const post = async (t: TestApp, orgId: string, json: unknown) => {
      const res = await t.request(`/api/skan/postback?org=${orgId}`, { method: 'POST', json });
      expect(res.status).toBe(200);
      return (await body(res)).id as string;
    };
    const linkOf = async (id: string) =>
      (await db.query<{ campaign_id: string | null; app_id: string | null }>('SELECT campaign_id, app_id FROM skan_postbacks WHERE id = $1', [id]))[0]!;
    const campaign = async (auth: Auth, skan_source_identifier: number) => {
      const res = await own.request('/api/v1/campaigns', { method: 'POST', headers: auth, json: { name: `SKAN ${skan_source_identifier}`, skan_source_identifier } });
      expect(res.status).toBe(201);
      return (await body(res)).id as string;
    };
    const app = async (auth: Auth, json: Record<string, unknown>) => {
      const res = await own.request('/api/v1/apps', { method: 'POST', headers: auth, json: { name: 'Shop', platform: 'ios', ...json } });
      expect(res.status).toBe(201);
      return (await body(res)).id as string;
    };
    const v40 = (sourceIdentifier: string, extra: Record<string, string | number | boolean> = {}) =>
      signer.sign(postback40({ 'source-identifier': sourceIdentifier, ...extra }));
    const v3 = (campaignId: number | string, version = '3.0') =>
      signer.sign({ version, 'ad-network-id': 'net.example', 'campaign-id': campaignId, 'app-id': 987654321, 'transaction-id': transactionId(), redownload: false, 'fidelity-type': 1, ...(version === '3.0' ? { 'did-win': true } : {}) });

    describe('to a campaign by skan_source_identifier', () => {
      test('a 4-digit source identifier, and a 2.2 or 3.0 campaign-id, match exactly', async () => {
        const { orgId, auth } = await orgWithKey(db);
        const big = await campaign(auth, 5239);
        const small = await campaign(auth, 42);
        expect((await linkOf(await post(own, orgId, v40('5239')))).campaign_id).toBe(big);
        expect((await linkOf(await post(own, orgId, v40('0042')))).campaign_id).toBe(small);
        expect((await linkOf(await post(own, orgId, v3(42)))).campaign_id).toBe(small);
        expect((await linkOf(await post(own, orgId, v3('42', '2.2')))).campaign_id).toBe(small);
        expect((await linkOf(await post(own, orgId, v40('5238')))).campaign_id).toBeNull();
        expect((await linkOf(await post(own, orgId, v3(39)))).campaign_id).toBeNull();
      });

      test("Apple's examples link: 4.0 source-identifier 5239, 2.2 and 3.0 campaign-id 42", async () => {
        const { orgId, auth } = await orgWithKey(db);
        const big = await campaign(auth, 5239);
        const small = await campaign(auth, 42);
        expect((await linkOf(await post(apple, orgId, APPLE_EXAMPLES['4.0 fine']))).campaign_id).toBe(big);
        expect((await linkOf(await post(apple, orgId, APPLE_EXAMPLES['4.0 coarse']))).campaign_id).toBe(big);
        expect((await linkOf(await post(apple, orgId, APPLE_EXAMPLES['3.0 not winning']))).campaign_id).toBe(small);
        const { orgId: other, auth: otherAuth } = await orgWithKey(db);
        const otherSmall = await campaign(otherAuth, 42);
        expect((await linkOf(await post(apple, other, APPLE_EXAMPLES['2.2']))).campaign_id).toBe(otherSmall);
      });

      test('2 or 3 digits of a 4.0 source identifier match the one campaign ending in them, and none when several do', async () => {
        const { orgId, auth } = await orgWithKey(db);
        const a = await campaign(auth, 5239);
        const b = await campaign(auth, 42);
        expect((await linkOf(await post(own, orgId, v40('39')))).campaign_id).toBe(a);
        expect((await linkOf(await post(own, orgId, v40('239')))).campaign_id).toBe(a);
        expect((await linkOf(await post(own, orgId, v40('42')))).campaign_id).toBe(b);
        expect((await linkOf(await post(own, orgId, v40('042')))).campaign_id).toBe(b);
        await campaign(auth, 1239);
        expect((await linkOf(await post(own, orgId, v40('39')))).campaign_id).toBeNull();
        expect((await linkOf(await post(own, orgId, v40('239')))).campaign_id).toBeNull();
        expect((await linkOf(await post(own, orgId, v40('5239')))).campaign_id).toBe(a);
      });

      test("security: another organization's campaign is never linked", async () => {
        const owner = await orgWithKey(db);
        await campaign(owner.auth, 7777);
        const { orgId } = await orgWithKey(db);
        expect((await linkOf(await post(own, orgId, v40('7777')))).campaign_id).toBeNull();
        expect((await linkOf(await post(own, orgId, v40('77')))).campaign_id).toBeNull();
      });
    });

    describe('to an app by its App Store id', () => {
      test('apple_app_id, or id<digits> in an App Store store_url; apple_app_id first', async () => {
        const { orgId, auth } = await orgWithKey(db);
        const byUrl = await app(auth, { store_url: 'https://apps.apple.com/us/app/shop/id987654321?l=en' });
        expect((await linkOf(await post(own, orgId, v40('1000')))).app_id).toBe(byUrl);
        const byId = await app(auth, { apple_app_id: '987654321' });
        expect((await linkOf(await post(own, orgId, v40('1000')))).app_id).toBe(byId);
        expect((await linkOf(await post(own, orgId, v40('1000', { 'app-id': '0987654321' })))).app_id).toBe(byId);
        expect((await linkOf(await post(own, orgId, v40('1000', { 'app-id': 11 })))).app_id).toBeNull();
      });

      test('store URLs: itunes.apple.com and /app/id forms count; other hosts and other ids do not', async () => {
        const cases: [string, boolean][] = [
          ['https://itunes.apple.com/us/app/shop/id987654321?mt=8', true],
          ['https://apps.apple.com/app/id987654321', true],
          ['HTTPS://APPS.APPLE.COM/app/ID987654321', true],
          ['https://apps.apple.com/app/id9876543210', false],
          ['https://example.com/app/id987654321', false],
          ['https://apps.apple.com.evil.example/app/id987654321', false],
          ['https://play.google.com/store/apps/details?id=987654321', false],
        ];
        for (const [url, links] of cases) {
          const { orgId, auth } = await orgWithKey(db);
          const appId = await app(auth, { store_url: url });
          expect((await linkOf(await post(own, orgId, v40('1000')))).app_id, url).toBe(links ? appId : null);
        }
      });

      test("Apple's examples link to the app whose store_url names 525463029", async () => {
        const { orgId, auth } = await orgWithKey(db);
        const appId = await app(auth, { store_url: `https://apps.apple.com/app/id${APPLE_EXAMPLE_APP_ID}` });
        expect((await linkOf(await post(apple, orgId, APPLE_EXAMPLES['4.0 fine']))).app_id).toBe(appId);
      });

      test("security: another organization's app is never linked", async () => {
        const owner = await orgWithKey(db);
        await app(owner.auth, { apple_app_id: '987654321' });
        const { orgId } = await orgWithKey(db);
        expect((await linkOf(await post(own, orgId, v40('1000')))).app_id).toBeNull();
      });
    });
  });
}
