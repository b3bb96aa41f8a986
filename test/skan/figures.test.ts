import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { revokeApiKey } from '../../src/auth/api-keys';
import { newId } from '../../src/shared/ids';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { postback40, testSigner, transactionId } from './support';

// The DuckDB mirror opens a file per app on a shared machine; no assertion depends on time.
setDefaultTimeout(30_000);

const ZERO = { postbacks: 0, installs: 0, redownloads: 0, conversion_values: { count: 0, sum: 0 }, coarse_conversion_values: { low: 0, medium: 0, high: 0 } };

for (const backend of backends()) {
  describe(`SKAN figures of a campaign on ${backend.name}`, async () => {
    const db = await backend.create();
    const signer = testSigner();
    const t = await testApp(db, { SKAN_PUBLIC_KEY: signer.pem, MIRROR_INTERVAL_MS: '0' }, { workers: false });
    const post = async (orgId: string, json: unknown) => expect((await t.request(`/api/skan/postback?org=${orgId}`, { method: 'POST', json })).status).toBe(200);
    const getCampaign = (auth: Record<string, string>, id: string) => t.request(`/api/v1/campaigns/${id}`, { headers: auth });
    const older = (version: '2.2' | '3.0', extra: Record<string, string | number | boolean>) =>
      signer.sign({ version, 'ad-network-id': 'net.example', 'campaign-id': 1234, 'app-id': 987654321, 'transaction-id': transactionId(), redownload: false, 'fidelity-type': 1, ...extra });

    async function campaignWithPostbacks() {
      const owner = await orgWithKey(db);
      const created = await body(await t.request('/api/v1/campaigns', { method: 'POST', headers: owner.auth, json: { name: 'SKAN', skan_source_identifier: 1234 } }));
      const postbacks = [
        postback40({ 'conversion-value': 10 }),
        { ...postback40({ redownload: true, 'coarse-conversion-value': 'high' }), 'conversion-value': undefined },
        { ...postback40({ 'postback-sequence-index': 1, 'coarse-conversion-value': 'low' }), 'conversion-value': undefined },
        { ...postback40({ 'postback-sequence-index': 2, 'coarse-conversion-value': 'medium' }), 'conversion-value': undefined },
        { ...postback40({ 'did-win': false }), 'conversion-value': undefined, 'source-app-id': undefined },
        older('3.0', { 'did-win': true, 'conversion-value': 5 }),
        older('2.2', { 'conversion-value': 7 }),
      ];
      for (const postback of postbacks) await post(owner.orgId, signer.sign(JSON.parse(JSON.stringify(postback))));
      // Another campaign's postback and an unlinked one count for neither.
      await post(owner.orgId, signer.sign(postback40({ 'source-identifier': '9999', 'conversion-value': 60 })));
      return { owner, campaign: created };
    }

    test('GET /api/v1/campaigns/:id adds up its postbacks: winning first postbacks are installs', async () => {
      const { owner, campaign } = await campaignWithPostbacks();
      const res = await getCampaign(owner.auth, campaign.id);
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({
        ...campaign,
        skan: { postbacks: 7, installs: 4, redownloads: 1, conversion_values: { count: 3, sum: 22 }, coarse_conversion_values: { low: 1, medium: 1, high: 1 } },
      });
    });

    test('a campaign without postbacks has zero figures', async () => {
      const { auth } = await orgWithKey(db);
      const created = await body(await t.request('/api/v1/campaigns', { method: 'POST', headers: auth, json: { name: 'Quiet' } }));
      expect(await body(await getCampaign(auth, created.id))).toEqual({ ...created, skan: ZERO });
    });

    test("security: another organization's campaign reads as unknown; a missing or revoked key is 401", async () => {
      const { campaign } = await campaignWithPostbacks();
      const stranger = await orgWithKey(db);
      for (const id of [campaign.id, newId()]) {
        const res = await getCampaign(stranger.auth, id);
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'campaign not found' });
      }
      await revokeApiKey(db, stranger.orgId, stranger.keyId);
      for (const auth of [{}, stranger.auth]) expect((await getCampaign(auth, campaign.id)).status).toBe(401);
    });

    test('postbacks reach the DuckDB mirror, decoded, for reports', async () => {
      const { owner, campaign } = await campaignWithPostbacks();
      await t.services.mirror.catchUp();
      const rows = await t.services.mirror.query<{ installs: number; fine: number }>(
        `SELECT count(*) FILTER (WHERE did_win IS DISTINCT FROM false AND coalesce(postback_sequence_index, 0) = 0) AS installs,
                sum(conversion_value) FILTER (WHERE did_win IS DISTINCT FROM false) AS fine
           FROM skan_postbacks WHERE org_id = $1 AND campaign_id = $2`,
        [owner.orgId, campaign.id],
      );
      expect(rows).toEqual([{ installs: 4, fine: 22 }]);
    });
  });
}
