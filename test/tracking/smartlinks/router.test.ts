import { describe, expect, test } from 'bun:test';
import { backends } from '../../support/db';
import { body, testApp, TEST_TRACKING_URL } from '../../support/app';
import { insertLink, orgWithKey } from '../../support/fixtures';
import { expectSecurityHeaders } from '../../support/http';
import { nestedClickIdOf, storedClicksOf } from '../../support/clicks';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const INSTAGRAM = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 330.0.0.40.92 (iPhone15,2; iOS 17_4; en_US; en; scale=3.00; 1179x2556; 596234127)';
const FACEBOOK_PREVIEW = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const APP_STORE = 'https://apps.apple.com/app/id123456789';
const PLAY_STORE = 'https://play.google.com/store/apps/details?id=com.example.app&hl=en';

const idsIn = (location: string) => (decodeURIComponent(decodeURIComponent(location)).match(/svc_click_id=([0-9A-Z]{26})/g) ?? []).length;

for (const backend of backends()) {
  describe(`GET /l/{slug} on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const org = await orgWithKey(db);
    const other = await orgWithKey(db, 'Other');
    const smartLink = async (fields: Record<string, unknown>, auth = org.auth) => {
      const res = await t.request('/api/v1/links', { method: 'POST', headers: auth, json: { kind: 'smart', ...fields } });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
      return (await body(res)) as { id: string; slug: string };
    };
    const visit = (slug: string, query = '', headers: Record<string, string> = {}) =>
      t.request(`${TEST_TRACKING_URL}/l/${slug}${query}`, { headers: { 'user-agent': IPHONE, 'x-forwarded-for': '8.8.8.8', ...headers } });
    const exported = async (clickId: string) => {
      await t.services.clickPipeline.flush();
      const res = await t.request('/api/v1/clicks?limit=1000', { headers: org.auth });
      return ((await body(res)).data as Record<string, any>[]).find((click) => click.id === clickId);
    };
    const storeRules = (then: Record<string, unknown>) => ({ version: 1, rules: [{ name: 'apps', if: { os: ['ios', 'android', 'desktop'] }, then }] });

    describe('happy', () => {
      test('the first matching rule wins; the 302 carries svc_click_id once; the route is recorded and exported', async () => {
        const link = await smartLink({
          destination: 'https://shop.example.com/home',
          rules: [
            { name: 'android', if: { os: 'android' }, then: { url: 'https://android.example.com/' } },
            { name: 'ios', if: { os: ['ios'] }, then: { url: 'https://ios.example.com/p?a=1' } },
            { name: 'any', if: {}, then: { url: 'https://any.example.com/' } },
          ],
        });
        const res = await visit(link.slug);
        expect(res.status).toBe(302);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expectSecurityHeaders(res);
        const location = res.headers.get('location')!;
        expect(location).toMatch(/^https:\/\/ios\.example\.com\/p\?a=1&svc_click_id=[0-9A-Z]{26}$/);
        const click = (await exported(nestedClickIdOf(location)))!;
        expect(click.route).toEqual({ rule_index: 1, rule_name: 'ios', action: 'url', variant_index: null, page: null });
        expect(click.nextHopUrl).toBe(location);
      });

      test('no rule matches: the rule set fallback, else the destination, else 404', async () => {
        const rules = [{ name: 'de', if: { country: 'DE' }, then: { url: 'https://de.example.com/' } }];
        const withFallback = await smartLink({ destination: 'https://shop.example.com/home', rules: { version: 1, rules, fallback: { url: 'https://fallback.example.com/' } } });
        expect(new URL((await visit(withFallback.slug)).headers.get('location')!).host).toBe('fallback.example.com');
        const withDestination = await smartLink({ destination: 'https://shop.example.com/home', rules });
        const res = await visit(withDestination.slug);
        expect(new URL(res.headers.get('location')!).host).toBe('shop.example.com');
        expect((await exported(nestedClickIdOf(res.headers.get('location')!)))!.route.action).toBe('destination');
        const bare = await smartLink({ destination: null, rules });
        const none = await visit(bare.slug);
        expect(none.status).toBe(404);
        expect(await body(none)).toEqual({ error: 'link not found' });
        expect(await storedClicksOf(t, bare.id)).toHaveLength(0);
      });

      test('an A/B rule is sticky per visitor without cookies and records the variant', async () => {
        const link = await smartLink({
          rules: [{ name: 'ab', if: {}, then: { variants: [{ url: 'https://a.example.com/', weight: 50 }, { url: 'https://b.example.com/', weight: 50 }] } }],
        });
        const hostsFor = async (ip: string) => {
          const hosts = new Set<string>();
          for (let i = 0; i < 4; i++) hosts.add(new URL((await visit(link.slug, '', { 'x-forwarded-for': ip })).headers.get('location')!).host);
          return hosts;
        };
        const seen = new Set<string>();
        for (let i = 1; i <= 24; i++) {
          const hosts = await hostsFor(`203.0.113.${i}`);
          expect(hosts.size).toBe(1);
          seen.add([...hosts][0]!);
        }
        expect(seen).toEqual(new Set(['a.example.com', 'b.example.com']));
        expect((await visit(link.slug)).headers.has('set-cookie')).toBe(false);
        const clicks = await storedClicksOf(t, link.id);
        for (const click of clicks) {
          const route = typeof click.route === 'string' ? JSON.parse(click.route) : click.route;
          expect(route.variant_index).toBe(new URL(click.next_hop_url).host === 'a.example.com' ? 0 : 1);
        }
      });

      test('a Play Store target carries referrer=svc_click_id%3D<id> and keeps its parameters', async () => {
        const link = await smartLink({ rules: storeRules({ store: PLAY_STORE }) });
        const res = await visit(link.slug, '', { 'user-agent': ANDROID });
        expect(res.status).toBe(302);
        const location = new URL(res.headers.get('location')!);
        expect(location.host).toBe('play.google.com');
        expect(location.searchParams.get('id')).toBe('com.example.app');
        expect(location.searchParams.get('hl')).toBe('en');
        expect(location.searchParams.get('referrer')).toMatch(/^svc_click_id=[0-9A-Z]{26}$/);
        expect(res.headers.get('location')).toContain('referrer=svc_click_id%3D');
        expect(idsIn(res.headers.get('location')!)).toBe(1);
      });

      test('a deep link on a mobile browser is a 302 with svc_click_id as a query parameter', async () => {
        const link = await smartLink({ rules: storeRules({ deep_link: 'myapp://product/42?ref=ad', fallback: 'https://shop.example.com/p/42' }) });
        const res = await visit(link.slug);
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toMatch(/^myapp:\/\/product\/42\?ref=ad&svc_click_id=[0-9A-Z]{26}$/);
      });

      test('an in-app browser gets the escape interstitial for a store action, with the spec headers and no third-party request', async () => {
        const link = await smartLink({ destination: 'https://shop.example.com/', rules: storeRules({ store: APP_STORE }) });
        const res = await visit(link.slug, '', { 'user-agent': INSTAGRAM });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('text/html');
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
        expectSecurityHeaders(res);
        const html = await res.text();
        expect(html).toContain('apps.apple.com');
        expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/);
        const [click] = await storedClicksOf(t, link.id);
        expect(click!.route.page ?? JSON.parse(click!.route).page).toBe('interstitial');
      });

      test('a desktop visitor gets a QR page encoding this /l URL, as SVG', async () => {
        const link = await smartLink({ rules: storeRules({ store: APP_STORE }) });
        const res = await visit(link.slug, '?utm_source=x', { 'user-agent': DESKTOP });
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const html = await res.text();
        expect(html).toContain('<svg');
        expect(html).toContain(`${TEST_TRACKING_URL}/l/${link.slug}`);
        expect(await storedClicksOf(t, link.id)).toHaveLength(1);
      });

      test('a link-preview bot gets og tags from the link preview; without a preview it is redirected', async () => {
        const preview = { title: 'Summer <sale>', description: 'Up to 50% off', image: 'https://cdn.example.com/og.png' };
        const link = await smartLink({ destination: 'https://shop.example.com/', preview, rules: [{ if: {}, then: { url: 'https://shop.example.com/sale' } }] });
        const res = await visit(link.slug, '', { 'user-agent': FACEBOOK_PREVIEW });
        expect(res.status).toBe(200);
        const html = await res.text();
        expect(html).toContain('property="og:title" content="Summer &lt;sale&gt;"');
        expect(html).toContain('property="og:image" content="https://cdn.example.com/og.png"');
        expect(html).toContain(`property="og:url" content="${TEST_TRACKING_URL}/l/${link.slug}"`);
        const plain = await smartLink({ destination: 'https://shop.example.com/', rules: [{ if: {}, then: { url: 'https://shop.example.com/sale' } }] });
        expect((await visit(plain.slug, '', { 'user-agent': FACEBOOK_PREVIEW })).status).toBe(302);
      });

      test('pass_params passes the query on, never duplicating svc_click_id', async () => {
        const link = await smartLink({ pass_params: true, rules: [{ if: {}, then: { url: 'https://shop.example.com/p?keep=1' } }] });
        const res = await visit(link.slug, '?utm_source=news&keep=2&svc_click_id=FORGED');
        const location = new URL(res.headers.get('location')!);
        expect(location.searchParams.get('utm_source')).toBe('news');
        expect(location.searchParams.getAll('keep')).toEqual(['1']);
        expect(location.searchParams.getAll('svc_click_id')).toHaveLength(1);
        expect(location.searchParams.get('svc_click_id')).not.toBe('FORGED');
        const closed = await smartLink({ rules: [{ if: {}, then: { url: 'https://shop.example.com/p' } }] });
        expect(new URL((await visit(closed.slug, '?utm_source=news')).headers.get('location')!).searchParams.has('utm_source')).toBe(false);
      });

      test('rules read query parameters, with "*" for any present value', async () => {
        const link = await smartLink({
          destination: 'https://shop.example.com/',
          rules: [
            { name: 'news', if: { params: { utm_source: ['news'] } }, then: { url: 'https://news.example.com/' } },
            { name: 'any-ref', if: { params: { ref: '*' } }, then: { url: 'https://ref.example.com/' } },
          ],
        });
        expect(new URL((await visit(link.slug, '?utm_source=news')).headers.get('location')!).host).toBe('news.example.com');
        expect(new URL((await visit(link.slug, '?ref=abc')).headers.get('location')!).host).toBe('ref.example.com');
        expect(new URL((await visit(link.slug, '?other=1')).headers.get('location')!).host).toBe('shop.example.com');
      });

      test('a visible url overrides the rules and behaves like /c', async () => {
        const link = await smartLink({ rules: [{ if: {}, then: { block: 403 } }] });
        const res = await visit(link.slug, `?url=${encodeURIComponent('https://lp.example.org/x?a=1')}`);
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toMatch(/^https:\/\/lp\.example\.org\/x\?a=1&svc_click_id=[0-9A-Z]{26}$/);
        const [click] = await storedClicksOf(t, link.id);
        expect(click!.transparent_param_present).toBe(true);
        expect(click!.route).toBeNull();
      });
    });

    describe('error', () => {
      test('block actions answer 403, 404 or 410 and record no click', async () => {
        for (const status of [403, 404, 410]) {
          const link = await smartLink({ destination: 'https://shop.example.com/', rules: [{ if: {}, then: { block: status } }] });
          const res = await visit(link.slug);
          expect(res.status).toBe(status);
          expectSecurityHeaders(res);
          expect(await storedClicksOf(t, link.id)).toHaveLength(0);
        }
      });

      test('an expired link answers 410 before any rule runs', async () => {
        const link = await smartLink({ destination: 'https://shop.example.com/', expires_at: '2020-01-01T00:00:00Z', rules: [{ if: {}, then: { block: 403 } }] });
        expect((await visit(link.slug)).status).toBe(410);
        expect(await storedClicksOf(t, link.id)).toHaveLength(0);
      });

      test('a click cap of N lets exactly N visits through, then 410; blocked visits do not count', async () => {
        const link = await smartLink({ destination: 'https://shop.example.com/', click_cap: 3 });
        const answers = await Promise.all(Array.from({ length: 8 }, () => visit(link.slug)));
        expect(answers.filter((res) => res.status === 302)).toHaveLength(3);
        expect(answers.filter((res) => res.status === 410)).toHaveLength(5);
        expect(await storedClicksOf(t, link.id)).toHaveLength(3);
      });

      test('force_transparent without url is the same 400 as /c', async () => {
        const link = await smartLink({ destination: 'https://shop.example.com/' });
        const res = await visit(link.slug, '?force_transparent=true');
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors.url).toBeDefined();
      });

      test('unknown slug, a paused smart link, a tracking link on /l and a smart link on /c answer 404', async () => {
        expect((await visit('no-such-slug')).status).toBe(404);
        const paused = await smartLink({ destination: 'https://shop.example.com/', status: 'paused' });
        expect((await visit(paused.slug)).status).toBe(404);
        const tracking = await insertLink(db, org.orgId);
        expect((await visit(tracking.slug)).status).toBe(404);
        const smart = await smartLink({ destination: 'https://shop.example.com/' });
        expect((await t.request(`${TEST_TRACKING_URL}/c/${smart.slug}`, { headers: { 'user-agent': IPHONE } })).status).toBe(404);
      });

      test('methods other than GET answer 405', async () => {
        const link = await smartLink({ destination: 'https://shop.example.com/' });
        expect((await t.request(`${TEST_TRACKING_URL}/l/${link.slug}`, { method: 'POST' })).status).toBe(405);
      });
    });

    describe('security', () => {
      test("another organization's click export never shows this link's clicks", async () => {
        const link = await smartLink({ destination: 'https://shop.example.com/' });
        const location = (await visit(link.slug)).headers.get('location')!;
        await t.services.clickPipeline.flush();
        const theirs = await body(await t.request('/api/v1/clicks?limit=1000', { headers: other.auth }));
        expect(theirs.data.find((click: { id: string }) => click.id === nestedClickIdOf(location))).toBeUndefined();
      });

      test('preview text is escaped: no markup from the link reaches the page', async () => {
        const link = await smartLink({
          destination: 'https://shop.example.com/',
          preview: { title: '"><script>alert(1)</script>', description: "x' onload='y" },
        });
        const html = await (await visit(link.slug, '', { 'user-agent': FACEBOOK_PREVIEW })).text();
        expect(html).not.toContain('<script>alert(1)</script>');
        expect(html).not.toContain("x' onload='y");
      });
    });
  });
}
