import { describe, expect, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { ISO } from '../links/support';
import { APPLE_EXAMPLES, postback40, testSigner } from './support';

for (const backend of backends()) {
  describe(`GET /api/v1/skan-postbacks on ${backend.name}`, async () => {
    const db = await backend.create();
    const signer = testSigner();
    const own = await testApp(db, { SKAN_PUBLIC_KEY: signer.base64 }, { mirror: false, workers: false });
    const apple = await testApp(db, {}, { mirror: false, workers: false });
    const list = (auth: Record<string, string>, query = '') => own.request(`/api/v1/skan-postbacks${query}`, { headers: auth });
    const post = async (orgId: string, json: unknown, t = own) => {
      const res = await t.request(`/api/skan/postback?org=${orgId}`, { method: 'POST', json });
      expect(res.status).toBe(200);
      return (await body(res)).id as string;
    };

    test('answers the documented fields, decoded, newest first, with a limit', async () => {
      const { orgId, auth } = await orgWithKey(db);
      const campaign = await body(await own.request('/api/v1/campaigns', { method: 'POST', headers: auth, json: { name: 'C', skan_source_identifier: 5239 } }));
      const app = await body(await own.request('/api/v1/apps', { method: 'POST', headers: auth, json: { name: 'A', platform: 'ios', apple_app_id: '525463029' } }));
      const ids = [await post(orgId, APPLE_EXAMPLES['4.0 fine'], apple), await post(orgId, signer.sign(postback40())), await post(orgId, signer.sign(postback40()))];
      const res = await list(auth);
      expect(res.status).toBe(200);
      const { data } = await body(res);
      expect(data.map((p: { id: string }) => p.id)).toEqual(ids.toReversed());
      const fine = data[2];
      expect(Object.keys(fine).sort()).toEqual(
        [
          'ad_network_id', 'app_id', 'campaign_id', 'coarse_conversion_value', 'conversion_value', 'created_at', 'did_win', 'fidelity_type', 'id',
          'postback_sequence_index', 'redownload', 'source_app_id', 'source_domain', 'source_identifier', 'transaction_id', 'verified', 'version',
        ].sort(),
      );
      expect(fine).toEqual({
        id: ids[0],
        transaction_id: '6aafb7a5-0170-41b5-bbe4-fe71dedf1e30',
        version: '4.0',
        ad_network_id: 'com.example',
        app_id: app.id,
        campaign_id: campaign.id,
        source_identifier: '5239',
        source_app_id: null,
        source_domain: 'example.com',
        conversion_value: 63,
        coarse_conversion_value: null,
        postback_sequence_index: 0,
        fidelity_type: 1,
        did_win: true,
        redownload: false,
        verified: true,
        created_at: expect.stringMatching(ISO),
      });
      expect((await body(await list(auth, '?limit=1'))).data.map((p: { id: string }) => p.id)).toEqual([ids[2]]);
      expect((await body(await list(auth, '?limit=1000'))).data.length).toBe(3);
    });

    test('a bad limit is a 400 naming limit', async () => {
      const { auth } = await orgWithKey(db);
      for (const limit of ['0', '1001', '-1', 'x', '1.5']) {
        const res = await list(auth, `?limit=${limit}`);
        expect(res.status, limit).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors), limit).toEqual(['limit']);
      }
    });

    test("security: a key reads its organization's postbacks only; missing, wrong and revoked keys are 401", async () => {
      const a = await orgWithKey(db);
      const b = await orgWithKey(db);
      const example = APPLE_EXAMPLES['3.0 winning'];
      const idA = await post(a.orgId, example, apple);
      const idB = await post(b.orgId, example, apple);
      expect((await body(await list(a.auth))).data.map((p: { id: string }) => p.id)).toEqual([idA]);
      expect((await body(await list(b.auth))).data.map((p: { id: string }) => p.id)).toEqual([idB]);
      const empty = await orgWithKey(db);
      expect(await body(await list(empty.auth))).toEqual({ data: [], next_cursor: null });
      await revokeApiKey(db, empty.orgId, empty.keyId);
      for (const auth of [{}, { authorization: 'Bearer nope' }, { authorization: `Bearer svc_live_${'C'.repeat(32)}` }, empty.auth]) {
        const res = await list(auth);
        expect(res.status).toBe(401);
        expect(await body(res)).toEqual({ error: 'unauthorized' });
      }
    });
  });
}
