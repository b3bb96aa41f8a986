import { describe, expect, test } from 'bun:test';
import { TIMESTAMP_ERROR } from '../../src/shared/timestamp';
import { body, testApp, TEST_TRACKING_URL } from '../support/app';
import { backends } from '../support/db';
import { insertCampaign, insertLink, orgWithKey, verifiedDomain } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { ingest, IPHONE, sign } from './support';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const AD_PARAMS = {
  gclid: 'Cj0KCQ-abc_123', gbraid: 'GB', wbraid: 'WB', campaignid: '111', adgroupid: '222', creative: '333', keyword: 'running shoes',
  matchtype: 'e', network: 'ytv', device: 'm', placement: 'site.example', targetid: 'kwd-1', loc_physical_ms: '1023191',
  loc_interest_ms: '2840', adposition: '1t2',
};

for (const backend of backends()) {
  describe(`POST /api/ingest/clicks on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const stored = async (id: string) => {
      await t.services.clickPipeline.flush();
      return (await db.query<Record<string, any>>('SELECT * FROM clicks WHERE id = $1', [id]))[0];
    };
    const clickCount = async (orgId: string) => {
      await t.services.clickPipeline.flush();
      return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE org_id = $1', [orgId]))[0]!.n;
    };

    describe('happy', () => {
      test("a full row is stored under the link's organization and campaign, captured and enriched as /c's clicks", async () => {
        const org = await orgWithKey(db);
        const { campaignId } = await insertCampaign(db, org.orgId);
        const { slug, linkId } = await insertLink(db, org.orgId, { campaignId });
        const res = await ingest(t, [
          {
            slug, click_id: 'edge-full_1', ip: '8.8.8.8', user_agent: IPHONE, referer: 'https://www.google.com/',
            url: 'https://lp.example.org/p?a=1#top', ...AD_PARAMS,
          },
        ]);
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        expect(await body(res)).toEqual({ accepted: 1, rejected: [] });
        const row = (await stored('edge-full_1'))!;
        expect(row).toMatchObject({
          org_id: org.orgId, link_id: linkId, campaign_id: campaignId, next_hop_url: 'https://lp.example.org/p?a=1&svc_click_id=edge-full_1#top',
          gclid: 'Cj0KCQ-abc_123', gbraid: 'GB', wbraid: 'WB', campaign_ext_id: '111', ad_group_ext_id: '222', creative_id: '333',
          keyword: 'running shoes', match_type: 'e', network: 'ytv', device: 'm', placement: 'site.example', target_id: 'kwd-1',
          loc_physical_ms: '1023191', loc_interest_ms: '2840', ad_position: '1t2', ip: '8.8.8.8', user_agent: IPHONE,
          referer: 'https://www.google.com/', country: 'US', os_family: 'iOS', device_type: 'mobile', drop_reason: null,
          transparent_param_present: false, force_transparent: false, latency_ms: null, params: null,
        });
        expect(row.ip_day_hash).toBe(t.services.ipHasher.ipDay('8.8.8.8', new Date(row.created_at)));
      });

      test('ts keeps its instant, to the microsecond; matchtype, network and device outside their sets are not stored, as on /c', async () => {
        const org = await orgWithKey(db);
        const { slug } = await insertLink(db, org.orgId);
        // An hour ago, written in UTC+02:00 with six fraction digits.
        const at = new Date(Date.now() - 3_600_000);
        const local = new Date(at.getTime() + 2 * 3_600_000).toISOString().slice(0, 23);
        await ingest(t, [{ slug, click_id: 'edge-ts-1', ts: `${local}456+02:00`, matchtype: 'x', network: 'google', device: 'phone', gclid: 'g'.repeat(257) }]);
        const row = (await stored('edge-ts-1'))!;
        expect(new Date(row.created_at).toISOString()).toBe(at.toISOString());
        const [stamp] = await db.query<{ micros: string }>("SELECT to_char(created_at AT TIME ZONE 'UTC', 'US') AS micros FROM clicks WHERE id = $1", ['edge-ts-1']);
        expect(stamp!.micros).toBe(`${at.toISOString().slice(20, 23)}456`);
        expect([row.match_type, row.network, row.device, row.gclid]).toEqual([null, null, null, null]);
      });

      test('a bare row: a minted ULID, now, the destination; without ip and user agent it never attributes', async () => {
        const org = await orgWithKey(db);
        const { slug, linkId } = await insertLink(db, org.orgId, { destination: 'https://shop.example.com/landing?ref=ad' });
        const before = Date.now();
        expect(await body(await ingest(t, [{ slug }]))).toEqual({ accepted: 1, rejected: [] });
        const [row] = await (async () => {
          await t.services.clickPipeline.flush();
          return db.query<Record<string, any>>('SELECT * FROM clicks WHERE link_id = $1', [linkId]);
        })();
        expect(row!.id).toMatch(ULID);
        expect(row!.next_hop_url).toBe(`https://shop.example.com/landing?ref=ad&svc_click_id=${row!.id}`);
        expect(new Date(row!.created_at).getTime()).toBeGreaterThanOrEqual(before - 1);
        expect(row!.drop_reason).toBe('invalid');
      });

      test('null fields count as absent; keys outside the row format are ignored', async () => {
        const org = await orgWithKey(db);
        const { slug } = await insertLink(db, org.orgId);
        const res = await ingest(t, [{ slug, domain: null, click_id: 'edge-null-1', ts: null, ip: null, url: null, gclid: null, utm_source: 'news', colour: { any: 1 } }]);
        expect(await body(res)).toEqual({ accepted: 1, rejected: [] });
        expect(await stored('edge-null-1')).toMatchObject({ next_hop_url: 'https://shop.example.com/landing?svc_click_id=edge-null-1', gclid: null, params: null });
      });

      test('domain names a verified custom domain (any case, trailing dot); a smart link takes clicks too', async () => {
        const org = await orgWithKey(db);
        const domain = `go-${org.orgId.slice(-8).toLowerCase()}.example.com`;
        await verifiedDomain(db, org.orgId, domain);
        const onDomain = await insertLink(db, org.orgId, { domain });
        const smart = await insertLink(db, org.orgId, { kind: 'smart' });
        const res = await ingest(t, [
          { slug: onDomain.slug, domain: `${domain.toUpperCase()}.`, click_id: 'edge-dom-1' },
          { slug: smart.slug, domain: new URL(TEST_TRACKING_URL).host, click_id: 'edge-smart-1' },
        ]);
        expect(await body(res)).toEqual({ accepted: 2, rejected: [] });
        expect((await stored('edge-dom-1'))!.link_id).toBe(onDomain.linkId);
        expect((await stored('edge-smart-1'))!.link_id).toBe(smart.linkId);
      });

      test('the svc_click_id the url carries is the click id when click_id is absent', async () => {
        const org = await orgWithKey(db);
        const { slug } = await insertLink(db, org.orgId);
        const res = await ingest(t, [
          { slug, url: 'https://lp.example.org/?svc_click_id=edge-url-1&b=2' },
          { slug, click_id: 'edge-url-2', url: 'https://lp.example.org/?svc_click_id=edge-url-2' },
        ]);
        expect(await body(res)).toEqual({ accepted: 2, rejected: [] });
        expect((await stored('edge-url-1'))!.next_hop_url).toBe('https://lp.example.org/?b=2&svc_click_id=edge-url-1');
        expect((await stored('edge-url-2'))!.next_hop_url).toBe('https://lp.example.org/?svc_click_id=edge-url-2');
      });
    });

    describe('error', () => {
      test('each bad row is rejected alone, with its reason; the others are stored', async () => {
        const org = await orgWithKey(db);
        const { slug } = await insertLink(db, org.orgId);
        const paused = await insertLink(db, org.orgId, { status: 'paused' });
        const bare = await insertLink(db, org.orgId);
        await db.query('UPDATE links SET destination = NULL WHERE slug = $1', [bare.slug]);
        const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString();
        const rows: [unknown, string | null][] = [
          [{ slug, click_id: 'edge-err-ok1' }, null],
          [{ slug: 'no-such-link' }, 'link not found'],
          [{ slug: paused.slug }, 'link is paused'],
          [{ slug: bare.slug }, 'url: is required: the link has no usable destination'],
          [{ slug, domain: 'unverified.example.com' }, 'link not found'],
          [{ click_id: 'edge-err-x' }, 'slug: is required'],
          [{ slug: 'bad slug' }, 'slug: must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -'],
          [{ slug, click_id: 'abc' }, 'click_id: must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -, or null'],
          [{ slug, click_id: 'a'.repeat(65) }, 'click_id: must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -, or null'],
          [{ slug, click_id: 'has space' }, 'click_id: must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -, or null'],
          [{ slug, click_id: 12345 }, 'click_id: must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -, or null'],
          [{ slug, ts: 'yesterday' }, `ts: must be an ISO 8601 timestamp with a time zone, such as 2026-09-02T10:00:00Z, or null`],
          [{ slug, ts: '2026-09-02T10:00:00' }, `ts: must be an ISO 8601 timestamp with a time zone, such as 2026-09-02T10:00:00Z, or null`],
          [{ slug, ts: minutes(6) }, 'ts: must not be more than 5 minutes in the future'],
          [{ slug, ts: minutes(-31 * 24 * 60) }, 'ts: must be within the last 30 days'],
          [{ slug, click_id: 'edge-err-ok2', ts: minutes(4) }, null],
          [{ slug, ip: '999.1.1.1' }, 'ip: must be an IPv4 or IPv6 address, or null'],
          [{ slug, url: 'javascript:alert(1)' }, 'url: must be an absolute http(s) URL'],
          [{ slug, url: 'https://shop.example@evil.example/' }, 'url: must not contain credentials'],
          [{ slug, click_id: 'edge-err-1', url: 'https://lp.example.org/?svc_click_id=other-id' }, 'url: its svc_click_id differs from click_id'],
          [{ slug, url: 'https://lp.example.org/?svc_click_id=x%20y' }, 'url: its svc_click_id must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -'],
          [{ slug, gclid: 42 }, 'gclid: must be a string or null'],
          ['a string', 'must be an object'],
          [[{ slug }], 'must be an object'],
          [null, 'must be an object'],
          [{ slug, click_id: 'edge-err-ok3', ip: '2001:db8::1' }, null],
        ];
        const res = await ingest(t, rows.map(([row]) => row));
        expect(res.status).toBe(200);
        const result = await body(res);
        const expected = rows.flatMap(([, error], index) => (error === null ? [] : [{ index, error }]));
        expect(result.rejected).toEqual(expected);
        expect(result.accepted).toBe(3);
        expect(await clickCount(org.orgId)).toBe(3);
      });

      test('a row with several bad fields names each', async () => {
        const org = await orgWithKey(db);
        const { slug } = await insertLink(db, org.orgId);
        const { rejected } = await body(await ingest(t, [{ slug, click_id: 'x', referer: 7 }]));
        expect(rejected).toEqual([{ index: 0, error: 'click_id: must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -, or null; referer: must be a string or null' }]);
      });

      test('0 or 1001 events, no events array or another key: 400 naming events, nothing stored', async () => {
        const org = await orgWithKey(db);
        const { slug } = await insertLink(db, org.orgId);
        const message = 'must be an array of 1 to 1000 click rows';
        for (const raw of [
          JSON.stringify({ events: [] }),
          JSON.stringify({ events: Array.from({ length: 1001 }, () => ({ slug })) }),
          JSON.stringify({}),
          JSON.stringify({ events: { slug } }),
        ]) {
          const res = await ingest(t, undefined, { raw });
          expect(res.status).toBe(400);
          expectSecurityHeaders(res);
          const error = (await body(res)).error;
          expect(error.fieldErrors).toEqual({ events: [message] });
        }
        const extra = await body(await ingest(t, undefined, { raw: JSON.stringify({ events: [{ slug }], more: 1 }) }));
        expect(extra.error.fieldErrors).toEqual({ more: ['unknown field'] });
        expect(await clickCount(org.orgId)).toBe(0);
      });

      test('exactly 1000 events are taken', async () => {
        const org = await orgWithKey(db);
        const { slug } = await insertLink(db, org.orgId);
        const res = await ingest(t, Array.from({ length: 1000 }, () => ({ slug, ip: '8.8.8.8', user_agent: IPHONE })));
        expect(await body(res)).toEqual({ accepted: 1000, rejected: [] });
        expect(await clickCount(org.orgId)).toBe(1000);
      });

      test('a signed body that is not JSON, or not UTF-8: 400', async () => {
        for (const raw of ['{"events": [', 'not json', '']) {
          const res = await ingest(t, undefined, { raw });
          expect(res.status).toBe(400);
          expect(await body(res)).toEqual({ error: { formErrors: ['the body is not valid JSON'], fieldErrors: {} } });
        }
        const bytes = new Uint8Array([0x7b, 0xff, 0x7d]);
        const res = await t.request('/api/ingest/clicks', { method: 'POST', headers: { 'x-svc-signature': sign(t.config.ingestSecret!, bytes) }, body: bytes });
        expect(res.status).toBe(400);
      });

      test('other methods answer 405', async () => {
        const res = await t.request('/api/ingest/clicks');
        expect(res.status).toBe(405);
        expectSecurityHeaders(res);
      });
    });
  });
}
