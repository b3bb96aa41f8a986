import { describe, expect, test } from 'bun:test';
import { newId } from '../../src/shared/ids';
import { backends } from '../support/db';
import { body, testApp, type TestApp } from '../support/app';
import { insertLink } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { ROUTED_RULES as RULES } from './support';

const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const INSTAGRAM = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 330.0.0.40.92 (iPhone15,2; iOS 17_4; en_US; en; scale=3.00; 1179x2556; 596234127)';

/** A registered user's session cookie, organization, and an API key to make links with. */
async function account(t: TestApp) {
  const registered = await t.request('/register', { method: 'POST', json: { email: `r${newId().toLowerCase()}@example.com`, password: 'correct horse', organization: 'Acme' } });
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const { org_id: orgId } = await body(registered);
  const key = await body(await t.request('/api/dashboard/keys', { method: 'POST', headers: { cookie }, json: { name: 'test' } }));
  return { cookie, orgId: orgId as string, auth: { authorization: `Bearer ${key.api_key}` } };
}


for (const backend of backends()) {
  describe(`POST /api/dashboard/route-test on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const me = await account(t);
    const them = await account(t);
    const link = await body(await t.request('/api/v1/links', { method: 'POST', headers: me.auth, json: { kind: 'smart', destination: 'https://shop.example.com/', rules: RULES } }));
    const routeTest = (json: unknown, cookie = me.cookie) => t.request('/api/dashboard/route-test', { method: 'POST', headers: { cookie }, json });

    describe('happy', () => {
      test('names the facts, the matching rule and the answer a visit would get', async () => {
        const res = await routeTest({ slug: link.slug, ua: ANDROID, country: 'de', hour: 12, timezone: 'Europe/Berlin' });
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        const answer = await body(res);
        expect(Object.keys(answer).sort()).toEqual(['context', 'decision', 'pool']);
        expect(answer.context).toMatchObject({ country: 'DE', os: 'android', in_app: false, timezone: 'Europe/Berlin', hour: 12 });
        expect(answer.decision).toMatchObject({ rule_index: 0, rule_name: 'android-de', action: 'store', status: 302 });
        expect(answer.decision.location).toBe('https://play.google.com/store/apps/details?id=com.example');
        expect(answer.pool).toBeNull();
      });

      test('the hour in the given zone decides time rules; params, in-app and the fallback are shown', async () => {
        const night = await body(await routeTest({ slug: link.slug, hour: 23, timezone: 'Europe/Berlin' }));
        expect(night.decision).toMatchObject({ rule_name: 'night', action: 'block', status: 410, location: null });
        const news = await body(await routeTest({ slug: link.slug, hour: 12, timezone: 'Europe/Berlin', params: 'utm_source=news&x=1' }));
        expect(news.context.params).toEqual({ utm_source: 'news', x: '1' });
        expect(news.decision).toMatchObject({ rule_name: 'news', status: 302, location: 'https://news.example.com/' });
        const inApp = await body(await routeTest({ slug: link.slug, hour: 12, timezone: 'Europe/Berlin', ua: INSTAGRAM }));
        expect(inApp.context.in_app).toBe(true);
        expect(inApp.decision).toMatchObject({ rule_name: 'ios-app', action: 'deep_link', status: 200, page: 'interstitial' });
        const desktop = await body(await routeTest({ slug: link.slug, hour: 12, timezone: 'Europe/Berlin', os: 'desktop' }));
        expect(desktop.decision).toMatchObject({ rule_index: null, action: 'fallback', status: 302, location: 'https://fallback.example.com/' });
      });

      test('with an ip, the pool lookup comes along; nothing is recorded and no cap slot is used', async () => {
        const capped = await body(await t.request('/api/v1/links', { method: 'POST', headers: me.auth, json: { kind: 'smart', destination: 'https://shop.example.com/', click_cap: 1 } }));
        for (let i = 0; i < 3; i++) {
          const answer = await body(await routeTest({ slug: capped.slug, ip: '8.8.8.8' }));
          expect(answer.decision.status).toBe(302);
          expect(answer.pool).not.toBeNull();
          expect(answer.pool.ip).toBe('8.8.8.8');
        }
        await t.services.clickPipeline.flush();
        expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE link_id = $1', [capped.id]))[0]!.n).toBe(0);
      });
    });

    describe('error', () => {
      test('a tracking slug is a 400 naming slug; an unknown slug is 404', async () => {
        const tracking = await insertLink(db, me.orgId);
        const res = await routeTest({ slug: tracking.slug });
        expect(res.status).toBe(400);
        expect((await body(res)).error.fieldErrors.slug).toBeDefined();
        const missing = await routeTest({ slug: 'no-such-link' });
        expect(missing.status).toBe(404);
        expect(await body(missing)).toEqual({ error: 'link not found' });
      });

      test('bad fields answer 400 naming them', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ slug: link.slug, ip: 'not-an-ip' }, 'ip'],
          [{ slug: link.slug, hour: 24 }, 'hour'],
          [{ slug: link.slug, os: 'windows' }, 'os'],
          [{ slug: link.slug, timezone: 'Mars/Olympus' }, 'timezone'],
          [{ slug: link.slug, country: 'DEU' }, 'country'],
          [{ slug: link.slug, surprise: 1 }, 'surprise'],
          [{}, 'slug'],
        ];
        for (const [json, field] of cases) {
          const res = await routeTest(json);
          expect(res.status).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toContain(field);
        }
      });
    });

    describe('security', () => {
      test("another organization's slug is 404; no session is 401", async () => {
        const res = await routeTest({ slug: link.slug }, them.cookie);
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'link not found' });
        const anonymous = await t.request('/api/dashboard/route-test', { method: 'POST', json: { slug: link.slug } });
        expect(anonymous.status).toBe(401);
      });
    });
  });
}
