import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { backends } from '../../support/db';
import { testApp, TEST_TRACKING_URL } from '../../support/app';
import { insertApp, insertCampaign, orgWithKey } from '../../support/fixtures';

const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';

/** Checks the bytes really are a 1x1 GIF whose only colour is transparent. */
function expectTransparentGif(bytes: Uint8Array) {
  expect(new TextDecoder().decode(bytes.slice(0, 6))).toBe('GIF89a');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect([view.getUint16(6, true), view.getUint16(8, true)]).toEqual([1, 1]);
  const extension = bytes.indexOf(0x21);
  expect(bytes[extension + 1]).toBe(0xf9); // graphic control extension
  expect(bytes[extension + 3]! & 1).toBe(1); // transparency flag
  expect(bytes[extension + 6]).toBe(0); // transparent colour index = the only palette entry
  expect(bytes[bytes.length - 1]).toBe(0x3b); // trailer
}

for (const backend of backends()) {
  describe(`GET /i/{campaign} on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const org = await orgWithKey(db);
    const pixel = (path: string, ip = '8.8.8.8', headers: Record<string, string> = {}) =>
      t.request(`${TEST_TRACKING_URL}${path}`, { headers: { 'user-agent': ANDROID, 'x-forwarded-for': ip, ...headers } });
    const impressionsOf = async (campaignId: string) => {
      await t.services.clickPipeline.flush();
      return db.query<Record<string, any>>('SELECT * FROM impressions WHERE campaign_id = $1 ORDER BY id', [campaignId]);
    };

    describe('happy', () => {
      test('answers a transparent 1x1 GIF, no-store, no cookie', async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        const res = await pixel(`/i/${campaignId}`, '8.8.8.8', { cookie: 'x=1' });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/gif');
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('set-cookie')).toBeNull();
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expectTransparentGif(new Uint8Array(await res.arrayBuffer()));
      });

      test('records the impression with its parameters, an IP+day hash and a household hash, never the IP', async () => {
        const { appId } = await insertApp(db, org.orgId);
        const { campaignId } = await insertCampaign(db, org.orgId, { appId });
        await pixel(`/i/${campaignId}?app=app-42&cr=cr-7&pl=feed&p=${'n'.repeat(80)}`, '8.8.8.8');
        await pixel(`/i/${campaignId}`, '8.8.4.4');
        const [first, second] = await impressionsOf(campaignId);
        const day = new Date(first!.created_at);
        expect(first).toMatchObject({
          org_id: org.orgId,
          campaign_id: campaignId,
          app_id: 'app-42',
          creative_id: 'cr-7',
          placement: 'feed',
          partner: 'n'.repeat(64),
          ip_day_hash: t.services.ipHasher.ipDay('8.8.8.8', day),
          household_hash: t.services.ipHasher.household('8.8.8.8'),
          user_agent: ANDROID,
          os: 'Android',
          device_type: 'mobile',
          country: 'US',
          source: 'pixel',
        });
        // Same /24, so the same household; the app falls back to the campaign's.
        expect(second!.household_hash).toBe(t.services.ipHasher.household('8.8.4.4'));
        expect(second!.app_id).toBe(appId);
        expect(JSON.stringify([first, second])).not.toContain('8.8.');
      });

      test('an IPv6 viewer is hashed by its /48', async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        await pixel(`/i/${campaignId}`, '2001:db8:1234:1::7');
        await pixel(`/i/${campaignId}`, '2001:db8:1234:ffff::9');
        const [a, b] = await impressionsOf(campaignId);
        expect(a!.household_hash).toBe(b!.household_hash);
        expect(a!.ip_day_hash).not.toBe(b!.ip_day_hash);
      });

      test('the campaign may be named by its external id', async () => {
        const externalId = `ext-${Date.now()}`;
        const { campaignId } = await insertCampaign(db, org.orgId, { externalId });
        expect((await pixel(`/i/${externalId}`)).status).toBe(200);
        expect(await impressionsOf(campaignId)).toHaveLength(1);
      });
    });

    describe('errors', () => {
      test('an unknown campaign records nothing and still answers the GIF', async () => {
        await t.services.clickPipeline.flush();
        const before = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM impressions'))[0]!.n;
        const res = await pixel('/i/no-such-campaign?p=x');
        expect(res.status).toBe(200);
        expectTransparentGif(new Uint8Array(await res.arrayBuffer()));
        await t.services.clickPipeline.flush();
        expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM impressions'))[0]!.n).toBe(before);
      });

      test('an external id used by two organizations is ambiguous and records nothing', async () => {
        const other = await orgWithKey(db);
        const externalId = `shared-${Date.now()}`;
        const mine = await insertCampaign(db, org.orgId, { externalId });
        const theirs = await insertCampaign(db, other.orgId, { externalId });
        expect((await pixel(`/i/${externalId}`)).status).toBe(200);
        expect(await impressionsOf(mine.campaignId)).toHaveLength(0);
        expect(await impressionsOf(theirs.campaignId)).toHaveLength(0);
      });

      test('odd query strings never break the pixel', async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        for (const query of ['?p=a&p=b', '?cr=%E0%A4%A', '?app=' + 'x'.repeat(5000), '?&&=&pl']) {
          const res = await pixel(`/i/${campaignId}${query}`);
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toBe('image/gif');
        }
        expect(await impressionsOf(campaignId)).toHaveLength(4);
      });
    });

    describe('security', () => {
      test('the journal on disk holds the hashes, not the viewer address', async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        await pixel(`/i/${campaignId}`, '198.51.100.77');
        const dir = join(t.config.dataDir, 'journal');
        const text = readdirSync(dir)
          .filter((name) => name.endsWith('.jsonl'))
          .map((name) => readFileSync(join(dir, name), 'utf8'))
          .join('');
        expect(text).toContain(t.services.ipHasher.household('198.51.100.77'));
        expect(text).not.toContain('198.51.100.77');
      });

      test('%00 in the campaign or the parameters neither breaks the pixel nor the pipeline', async () => {
        const { campaignId } = await insertCampaign(db, org.orgId);
        const unknown = await pixel('/i/a%00b');
        expect(unknown.status).toBe(200);
        expectTransparentGif(new Uint8Array(await unknown.arrayBuffer()));
        const res = await pixel(`/i/${campaignId}?cr=c%00r&p=%00`);
        expect(res.status).toBe(200);
        const [stored] = await impressionsOf(campaignId);
        expect(stored).toMatchObject({ creative_id: 'cr', partner: null });
      });
    });
  });
}
