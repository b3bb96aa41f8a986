import { describe, expect, test } from 'bun:test';
import { createServing } from '../../../src/app';
import { forwardTo, startForwardReceiver } from '../../../src/http/forwarding';
import { backends } from '../../support/db';
import { body, testApp, TEST_TRACKING_URL } from '../../support/app';
import { insertLink, orgWithKey, verifiedDomain } from '../../support/fixtures';
import { clickIdOf, storedClickCount } from '../../support/clicks';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const SPEC_HEADERS = ['cache-control', 'location', 'referrer-policy', 'x-content-type-options', 'x-frame-options'];


for (const backend of backends()) {
  describe(`GET /c/{slug} on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const org = await orgWithKey(db);
    const click = (path: string, headers: Record<string, string> = {}, base = TEST_TRACKING_URL) =>
      t.request(`${base}${path}`, { headers: { 'user-agent': IPHONE, 'x-forwarded-for': '8.8.8.8', ...headers } });
    const stored = async (id: string) => {
      await t.services.clickPipeline.flush();
      return (await db.query<Record<string, any>>('SELECT * FROM clicks WHERE id = $1', [id]))[0];
    };

    describe('happy', () => {
      test('without url: one 302 to the link destination with exactly the spec headers and no body', async () => {
        const { slug } = await insertLink(db, org.orgId, { destination: 'https://shop.example.com/landing?ref=ad#top' });
        const res = await click(`/c/${slug}`, { cookie: 'a=b' });
        expect(res.status).toBe(302);
        expect([...res.headers.keys()].sort()).toEqual(SPEC_HEADERS);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const location = res.headers.get('location')!;
        expect(location).toMatch(/^https:\/\/shop\.example\.com\/landing\?ref=ad&svc_click_id=[0-9A-Z]{26}#top$/);
        expect(clickIdOf(location)).toMatch(ULID);
        expect(await res.text()).toBe('');
      });

      test('every 302 keeps its own Location after later redirects (the headers are built once and copied)', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const answers = await Promise.all(['a', 'b', 'c'].map((page) => click(`/c/${slug}?url=${encodeURIComponent(`https://shop.example.com/${page}`)}`)));
        const locations = answers.map((res) => res.headers.get('location')!);
        expect(locations.map((location) => new URL(location).pathname)).toEqual(['/a', '/b', '/c']);
        expect(new Set(locations.map(clickIdOf)).size).toBe(3);
        for (const res of answers) expect([...res.headers.keys()].sort()).toEqual(SPEC_HEADERS);
      });

      test('the url parameter, encoded once, twice or three times, or under an alias, wins over the destination', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const landing = 'https://lp.example.org/p/a%20b?q=c%2B%2B&next=%2Fcart#frag';
        const cases: [string, string][] = [
          ['url', encodeURIComponent(landing)],
          ['url', encodeURIComponent(encodeURIComponent(landing))],
          ['url', encodeURIComponent(encodeURIComponent(encodeURIComponent(landing)))],
          ['u', encodeURIComponent(landing)],
          ['redirect', encodeURIComponent(landing)],
          ['dest', encodeURIComponent(encodeURIComponent(landing))],
          ['r', encodeURIComponent(landing)],
        ];
        for (const [name, value] of cases) {
          const res = await click(`/c/${slug}?gclid=G1&${name}=${value}`);
          expect(res.status).toBe(302);
          const location = res.headers.get('location')!;
          const id = clickIdOf(location);
          expect(location).toBe(`https://lp.example.org/p/a%20b?q=c%2B%2B&next=%2Fcart&svc_click_id=${id}#frag`);
          const row = (await stored(id))!;
          expect(row.transparent_param_present).toBe(true);
          expect(row.next_hop_url).toBe(location);
        }
      });

      test('force_transparent=true follows url; an existing svc_click_id is replaced', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const landing = 'https://lp.example.org/x?svc_click_id=OLD&a=1#f';
        const res = await click(`/c/${slug}?force_transparent=true&url=${encodeURIComponent(landing)}`);
        expect(res.status).toBe(302);
        const location = res.headers.get('location')!;
        const id = clickIdOf(location);
        expect(location).toBe(`https://lp.example.org/x?a=1&svc_click_id=${id}#f`);
        const row = (await stored(id))!;
        expect(row.force_transparent).toBe(true);
        expect(row.transparent_param_present).toBe(true);
      });

      test('the click captures the listed parameters, the request and its enrichment', async () => {
        const campaignId = null;
        const { slug, linkId } = await insertLink(db, org.orgId);
        const query = [
          'gclid=Cj0KCQ-abc_123', 'gbraid=GB', 'wbraid=WB', 'campaignid=111', 'adgroupid=222', 'creative=333',
          'keyword=running+shoes', 'matchtype=e', 'network=ytv', 'device=m', 'placement=site.example', 'targetid=kwd-1',
          'loc_physical_ms=1023191', 'loc_interest_ms=2840', 'adposition=1t2', 'utm_source=google', 'utm_campaign=spring%20sale',
        ].join('&');
        const res = await click(`/c/${slug}?${query}`, { referer: 'https://www.google.com/' });
        const row = (await stored(clickIdOf(res.headers.get('location')!)))!;
        expect(row).toMatchObject({
          org_id: org.orgId,
          link_id: linkId,
          campaign_id: campaignId,
          gclid: 'Cj0KCQ-abc_123',
          gbraid: 'GB',
          wbraid: 'WB',
          campaign_ext_id: '111',
          ad_group_ext_id: '222',
          creative_id: '333',
          keyword: 'running shoes',
          match_type: 'e',
          network: 'ytv',
          device: 'm',
          placement: 'site.example',
          target_id: 'kwd-1',
          loc_physical_ms: '1023191',
          loc_interest_ms: '2840',
          ad_position: '1t2',
          transparent_param_present: false,
          force_transparent: false,
          is_bot: false,
          ip: '8.8.8.8',
          user_agent: IPHONE,
          referer: 'https://www.google.com/',
          country: 'US',
          os_family: 'iOS',
          os_version: '17.4',
          device_type: 'mobile',
          drop_reason: null,
          params: { utm_source: 'google', utm_campaign: 'spring sale' },
          route: null,
        });
        expect(row.latency_ms).toBeGreaterThanOrEqual(0);
        expect(row.ip_day_hash).toBe(t.services.ipHasher.ipDay('8.8.8.8', new Date(row.created_at)));
        expect(row.household_hash).toBe(t.services.ipHasher.household('8.8.8.8'));
      });

      test('matchtype, network and device outside their sets, and an over-long gclid, are not stored', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const res = await click(`/c/${slug}?matchtype=x&network=google&device=phone&gclid=${'g'.repeat(257)}`);
        expect(res.status).toBe(302);
        const row = (await stored(clickIdOf(res.headers.get('location')!)))!;
        expect([row.match_type, row.network, row.device, row.gclid]).toEqual([null, null, null, null]);
      });

      test('a crawler that is not verified is still redirected, and stored with a drop reason', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
        const res = await click(`/c/${slug}`, { 'user-agent': googlebot, 'x-forwarded-for': '203.0.113.9' });
        expect(res.status).toBe(302);
        const row = (await stored(clickIdOf(res.headers.get('location')!)))!;
        expect(row.is_bot).toBe(false);
        expect(row.drop_reason).toBe('bot');
      });

      test('every click gets its own ULID', async () => {
        const { slug, linkId } = await insertLink(db, org.orgId);
        const responses = await Promise.all(Array.from({ length: 200 }, () => click(`/c/${slug}`)));
        const ids = responses.map((res) => clickIdOf(res.headers.get('location')!));
        expect(new Set(ids).size).toBe(200);
        expect(ids.every((id) => ULID.test(id))).toBe(true);
        expect(await storedClickCount(t, linkId)).toBe(200);
      });
    });

    describe('errors', () => {
      test('force_transparent=true without url is 400 in the Error shape and records nothing', async () => {
        const { slug, linkId } = await insertLink(db, org.orgId);
        const res = await click(`/c/${slug}?force_transparent=true`);
        expect(res.status).toBe(400);
        expect(await body(res)).toEqual({ error: { formErrors: [], fieldErrors: { url: ['is required when force_transparent=true'] } } });
        expect(await storedClickCount(t, linkId)).toBe(0);
      });

      test('force_transparent accepts only true', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const res = await click(`/c/${slug}?force_transparent=1&url=${encodeURIComponent('https://a.example.com/')}`);
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors.force_transparent).toEqual(["the only allowed value is 'true'"]);
      });

      test('a destination that is not http(s) is 400, at any depth of encoding, and records nothing', async () => {
        const { slug, linkId } = await insertLink(db, org.orgId);
        const unsafe = ['javascript:alert(1)', 'data:text/html,x', '/relative', '//evil.example.com/', 'http://', 'ftp://a.example.com/'];
        for (const value of unsafe) {
          for (const encoded of [value, encodeURIComponent(value), encodeURIComponent(encodeURIComponent(value))]) {
            const res = await click(`/c/${slug}?u=${encoded}`);
            expect(res.status).toBe(400);
            const error = (await body(res)).error;
            expect(error.formErrors).toEqual([]);
            expect(Object.keys(error.fieldErrors)).toEqual(['u']);
          }
        }
        expect(await storedClickCount(t, linkId)).toBe(0);
      });

      test('a link with an unusable destination needs a url', async () => {
        const none = await insertLink(db, org.orgId);
        await db.query('UPDATE links SET destination = NULL WHERE id = $1', [none.linkId]);
        const script = await insertLink(db, org.orgId, { destination: 'javascript:alert(1)' });
        for (const { slug } of [none, script]) {
          const res = await click(`/c/${slug}`);
          expect(res.status).toBe(400);
          expect((await body(res)).error.formErrors).toEqual(['no landing URL: pass url, or give the link an http(s) destination']);
          expect((await click(`/c/${slug}?url=${encodeURIComponent('https://ok.example.com/')}`)).status).toBe(302);
        }
      });

      test('unknown slug, paused link and smart link answer 404', async () => {
        const paused = await insertLink(db, org.orgId, { status: 'paused' });
        const smart = await insertLink(db, org.orgId, { kind: 'smart' });
        for (const slug of ['no-such-slug', paused.slug, smart.slug]) {
          const res = await click(`/c/${slug}?url=${encodeURIComponent('https://a.example.com/')}`);
          expect(res.status).toBe(404);
          expect(await body(res)).toEqual({ error: 'link not found' });
        }
      });

      test('a link answers only on the host it is bound to', async () => {
        await verifiedDomain(db, org.orgId, 'go.brand.example');
        const own = await insertLink(db, org.orgId, { domain: 'go.brand.example' });
        const plain = await insertLink(db, org.orgId);
        expect((await click(`/c/${own.slug}`, {}, 'http://go.brand.example')).status).toBe(302);
        expect((await click(`/c/${own.slug}`, {}, 'http://GO.Brand.Example')).status).toBe(302);
        expect((await click(`/c/${own.slug}`)).status).toBe(404);
        expect((await click(`/c/${plain.slug}`)).status).toBe(302);
        expect((await click(`/c/${plain.slug}`, {}, 'http://go.brand.example')).status).toBe(404);
        expect((await click(`/c/${plain.slug}`, {}, 'http://api.test.local')).status).toBe(404);
      });

      test('other methods on /c and /i answer 405 with Allow: GET and the security headers, and record nothing', async () => {
        const { slug, linkId } = await insertLink(db, org.orgId);
        for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
          for (const path of [`/c/${slug}`, '/i/some-campaign']) {
            const res = await t.request(`${TEST_TRACKING_URL}${path}`, { method });
            expect(res.status).toBe(405);
            expect(res.headers.get('allow')).toBe('GET');
            expect(await body(res)).toEqual({ error: 'method not allowed' });
            expect(res.headers.get('x-content-type-options')).toBe('nosniff');
            expect(res.headers.get('x-frame-options')).toBe('DENY');
            expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
          }
        }
        expect(await storedClickCount(t, linkId)).toBe(0);
      });
    });

    describe('security', () => {
      test('no cookie, HTML or script in the answer, and a CR/LF in the landing URL is refused, never split into headers', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const ok = await click(`/c/${slug}?url=${encodeURIComponent('https://a.example.com/x')}`);
        expect(ok.status).toBe(302);
        expect(ok.headers.get('set-cookie')).toBeNull();
        expect(ok.headers.get('content-type')).toBeNull();
        expect(await ok.text()).toBe('');
        const res = await click(`/c/${slug}?url=${encodeURIComponent('https://a.example.com/x\r\nSet-Cookie: s=1')}`);
        expect(res.status).toBe(400);
        expect(res.headers.get('set-cookie')).toBeNull();
        expect(res.headers.get('location')).toBeNull();
      });

      test('a svc_click_id sent by the visitor never becomes the click id', async () => {
        const { slug } = await insertLink(db, org.orgId);
        const res = await click(`/c/${slug}?svc_click_id=CHOSEN&url=${encodeURIComponent('https://a.example.com/?svc_click_id=CHOSEN')}`);
        const location = res.headers.get('location')!;
        expect(location.match(/svc_click_id=/g)).toHaveLength(1);
        expect(clickIdOf(location)).toMatch(ULID);
        expect((await stored(clickIdOf(location)))!.params).toBeNull();
      });

      test('%00 in the query is stored without the NUL, and the clicks after it keep flowing', async () => {
        const { slug, linkId } = await insertLink(db, org.orgId);
        const before = await storedClickCount(t, linkId);
        const res = await click(`/c/${slug}?gclid=a%00b&keyword=k%00&sub%00id=%00x&url=${encodeURIComponent('https://a.example.com/p?y=%00')}`);
        expect(res.status).toBe(302);
        // The landing URL keeps its own escapes byte for byte.
        expect(res.headers.get('location')).toStartWith('https://a.example.com/p?y=%00&svc_click_id=');
        const row = (await stored(clickIdOf(res.headers.get('location')!)))!;
        expect(row).toMatchObject({ gclid: 'ab', keyword: 'k', params: { subid: 'x' } });
        const next = await click(`/c/${slug}`);
        expect(next.status).toBe(302);
        expect(await storedClickCount(t, linkId)).toBe(before + 2);
      });

      test('a slug holding %00 is an unknown link, not a database error', async () => {
        const res = await click('/c/a%00b');
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'link not found' });
      });
    });

    describe('handed over by a tracking listener thread', () => {
      test('a forwarded click reaches the click handler, with the peer the listener saw', async () => {
        // As main.ts wires it: the receiver hands forwarded requests to the node's dispatch.
        const serving = createServing(t.services);
        const receiver = startForwardReceiver(serving);
        const main = Bun.serve({ port: 0, fetch: () => new Response('main') });
        serving.app.server = receiver.serverFor(main);
        const listener = Bun.serve({ port: 0, fetch: forwardTo(receiver.target) });
        try {
          const { slug } = await insertLink(db, org.orgId);
          const res = await fetch(`http://127.0.0.1:${listener.port}/c/${slug}`, { redirect: 'manual', headers: { host: new URL(TEST_TRACKING_URL).host, 'user-agent': IPHONE } });
          expect(res.status).toBe(302);
          expect((await stored(clickIdOf(res.headers.get('location')!)))!.ip).toBe('127.0.0.1');
        } finally {
          listener.stop(true);
          main.stop(true);
          await receiver.stop();
        }
      });
    });

    describe('link changes', () => {
      test('a PATCH takes effect on the next click: pause, destination, domain', async () => {
        const created = await t.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { destination: 'https://one.example.com/' } });
        expect(created.status).toBe(201);
        const link = await body(created);
        const patch = (json: unknown) => t.request(`/api/v1/links/${link.id}`, { method: 'PATCH', headers: org.auth, json });
        expect((await click(`/c/${link.slug}`)).headers.get('location')).toStartWith('https://one.example.com/?svc_click_id=');

        expect((await patch({ status: 'paused' })).status).toBe(200);
        expect((await click(`/c/${link.slug}`)).status).toBe(404);
        expect((await patch({ status: 'active', destination: 'https://two.example.com/' })).status).toBe(200);
        expect((await click(`/c/${link.slug}`)).headers.get('location')).toStartWith('https://two.example.com/?svc_click_id=');

        const host = `go-${link.id.toLowerCase()}.example.com`;
        await verifiedDomain(db, org.orgId, host);
        expect((await patch({ domain: host })).status).toBe(200);
        expect((await click(`/c/${link.slug}`)).status).toBe(404);
        expect((await click(`/c/${link.slug}`, {}, `http://${host}`)).status).toBe(302);
      });

      test('a link created after its slug was asked for answers at once', async () => {
        const slug = `late-${Date.now()}`;
        expect((await click(`/c/${slug}`)).status).toBe(404);
        expect((await click(`/c/${slug}`)).status).toBe(404);
        const created = await t.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { slug, destination: 'https://late.example.com/' } });
        expect(created.status).toBe(201);
        expect((await click(`/c/${slug}`)).status).toBe(302);
      });
    });
  });
}
