import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { compileLandingHosts, landingHostAllowed, parseLandingHost } from '../../src/tracking/redirect/landing-hosts';
import type { CompiledLink } from '../../src/tracking/redirect/link-cache/compiled-link';
import { createLinkCache } from '../../src/tracking/redirect/link-cache/link-cache';
import { body, testApp, TEST_TRACKING_URL } from '../support/app';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { storedClickCount } from '../support/clicks';

const enc = encodeURIComponent;

// Landing URLs a link destination may not be: each must be refused by /c however it is encoded.
const DECEPTIVE = [
  'https://shop.example@evil.example/',
  'https://shop.example:pw@evil.example/',
  'https://evil.example\\@shop.example/',
  'https://evil.example\\.shop.example/',
  'https:\\\\evil.example/',
  'https://shop.example/a\r\nSet-Cookie: a=b',
  'https://shop.example/\u0000',
  'https://shop.example/a b',
  'https://shop.example/\u0085',
  'https://shop.example/\u00a0',
];

describe('allowed landing host patterns', () => {
  const label = fc.constantFrom('a', 'b', 'shop', 'brand', 'x-y', 'example', 'evil', 'com');
  const hostname = fc.array(label, { minLength: 2, maxLength: 4 }).map((labels) => labels.join('.'));
  const pattern = fc.tuple(fc.boolean(), hostname).map(([wildcard, host]) => (wildcard ? `*.${host}` : host));

  test('property: a host passes exactly when it equals an entry or is a subdomain of a *. entry', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 6 }), hostname, (list, host) => {
        const expected = list.some((p) => (p.startsWith('*.') ? host.endsWith(`.${p.slice(2)}`) : host === p));
        expect(landingHostAllowed(compileLandingHosts(list), host)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  test('entries are lower-cased; schemes, ports, paths, IP literals and bare or nested wildcards are refused', () => {
    expect(parseLandingHost('Shop.Example')).toEqual({ value: 'shop.example' });
    expect(parseLandingHost('*.Brand.Example')).toEqual({ value: '*.brand.example' });
    for (const bad of ['*', '*.', '*.com', 'com', '*.*.example', 'a.*.example', 'https://shop.example', 'shop.example/', 'shop.example:443', '192.0.2.1', '[::1]', ' shop.example', '', 'shop..example']) {
      expect([bad, 'error' in parseLandingHost(bad)]).toEqual([bad, true]);
    }
  });
});

for (const backend of backends()) {
  describe(`landing URLs on /c/{slug} on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db);
    const org = await orgWithKey(db);
    const click = (slug: string, query: string) => t.request(`${TEST_TRACKING_URL}/c/${slug}?${query}`);
    const api = (method: string, path: string, json?: unknown) => t.request(path, { method, headers: org.auth, json });

    test('credentials, backslashes, blanks and control characters in the landing URL answer 400, raw or encoded up to three times', async () => {
      const { linkId, slug } = await insertLink(db, org.orgId);
      for (const landing of DECEPTIVE) {
        const forms = [enc(landing), enc(enc(landing)), enc(enc(enc(landing)))];
        // Sent unencoded where a request line can carry it: '@' and '\' can.
        if (!/[\s\u0000-\u001f\u0080-\u00a0]/.test(landing)) forms.push(landing);
        for (const form of forms) {
          const res = await click(slug, `url=${form}`);
          expect([landing, form, res.status]).toEqual([landing, form, 400]);
          expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { url: [expect.any(String)] } });
        }
        // The same URL as a destination is refused too: one rule for both.
        const asDestination = await api('POST', '/api/v1/links', { destination: landing });
        expect([landing, asDestination.status]).toEqual([landing, 400]);
      }
      expect(await storedClickCount(t, linkId)).toBe(0);
      expect((await click(slug, `url=${enc('https://shop.example/ok?next=%2Fcart')}`)).status).toBe(302);
    });

    test('allowed_landing_hosts closes the redirect: exact hosts and *.suffix patterns pass, others answer 400', async () => {
      const created = await api('POST', '/api/v1/links', {
        destination: 'https://shop.example/home',
        allowed_landing_hosts: ['Shop.Example', '*.brand.example', 'shop.example'],
      });
      expect(created.status).toBe(201);
      const link = await body(created);
      expect(link.allowed_landing_hosts).toEqual(['shop.example', '*.brand.example']);
      expect(await body(await api('GET', `/api/v1/links/${link.id}`))).toEqual(link);
      expect((await body(await api('GET', '/api/v1/links'))).data.find((l: { id: string }) => l.id === link.id)).toEqual(link);

      const allowed = ['https://shop.example/p', 'https://SHOP.example./p', 'http://shop.example:8443/p', 'https://a.brand.example/', 'https://x.a.brand.example/?q=1'];
      const refused = ['https://brand.example/', 'https://evil.example/', 'https://shop.example.evil.example/', 'https://evilshop.example/', 'https://a.brand.example.evil/', 'https://xbrand.example/', 'https://93.184.216.34/'];
      for (const landing of allowed) {
        const res = await click(link.slug, `url=${enc(landing)}`);
        expect([landing, res.status]).toEqual([landing, 302]);
      }
      for (const landing of refused) {
        for (const form of [enc(landing), enc(enc(landing))]) {
          const res = await click(link.slug, `force_transparent=true&url=${form}`);
          expect([landing, res.status]).toEqual([landing, 400]);
          expect((await body(res)).error).toEqual({ formErrors: [], fieldErrors: { url: ["must be on one of the link's allowed landing hosts"] } });
        }
      }
      // Without a url the destination is used, whatever the list says.
      expect((await click(link.slug, 'gclid=x')).headers.get('location')).toStartWith('https://shop.example/home?svc_click_id=');
      expect(await storedClickCount(t, link.id)).toBe(allowed.length + 1);

      // PATCH with null reopens it at once; a new list closes it again.
      const reopened = await api('PATCH', `/api/v1/links/${link.id}`, { allowed_landing_hosts: null });
      expect((await body(reopened)).allowed_landing_hosts).toBeNull();
      expect((await click(link.slug, `url=${enc('https://evil.example/')}`)).status).toBe(302);
      const closed = await api('PATCH', `/api/v1/links/${link.id}`, { allowed_landing_hosts: ['*.other.example'] });
      expect((await body(closed)).allowed_landing_hosts).toEqual(['*.other.example']);
      expect((await click(link.slug, `url=${enc('https://evil.example/')}`)).status).toBe(400);
      expect((await click(link.slug, `url=${enc('https://a.other.example/')}`)).status).toBe(302);
      // An empty list allows no url at all: only the destination.
      await api('PATCH', `/api/v1/links/${link.id}`, { allowed_landing_hosts: [] });
      expect((await click(link.slug, `url=${enc('https://shop.example/p')}`)).status).toBe(400);
      expect((await click(link.slug, '')).status).toBe(302);
      // A PATCH without the field keeps it.
      expect((await body(await api('PATCH', `/api/v1/links/${link.id}`, { status: 'active' }))).allowed_landing_hosts).toEqual([]);
    });

    test('the compiled cache entry carries the list, exact hosts and suffixes apart; no list compiles to null', async () => {
      const link = await body(await api('POST', '/api/v1/links', { allowed_landing_hosts: ['shop.example', '*.brand.example'] }));
      const plain = await body(await api('POST', '/api/v1/links', {}));
      const cache = createLinkCache({ db, trackingHost: 'track.test.local', linkChanges: t.services.linkChanges, requireVerifiedDomains: true });
      await cache.start();
      const entry = (await cache.lookup('track.test.local', link.slug)) as CompiledLink;
      expect(entry.landingHosts).toEqual({ exact: new Set(['shop.example']), suffixes: ['.brand.example'] });
      expect(((await cache.lookup('track.test.local', plain.slug)) as CompiledLink).landingHosts).toBeNull();
      cache.stop();
    });

    test('a new link has no list (open, the default); bad lists answer 400 naming each bad entry, and change nothing', async () => {
      const plain = await body(await api('POST', '/api/v1/links', {}));
      expect(plain.allowed_landing_hosts).toBeNull();
      const cases: [unknown, Record<string, unknown>][] = [
        [['ok.example', 'fine.example', 'not a host'], { 'allowed_landing_hosts.2': [expect.any(String)] }],
        [['*.com', 'https://x.example', '*.*.example', 'x.example:8443', '*.', '10.0.0.1', 'ok.example'], {
          'allowed_landing_hosts.0': [expect.any(String)],
          'allowed_landing_hosts.1': [expect.any(String)],
          'allowed_landing_hosts.2': [expect.any(String)],
          'allowed_landing_hosts.3': [expect.any(String)],
          'allowed_landing_hosts.4': [expect.any(String)],
          'allowed_landing_hosts.5': [expect.any(String)],
        }],
        [[1], { 'allowed_landing_hosts.0': [expect.any(String)] }],
        ['shop.example', { allowed_landing_hosts: [expect.any(String)] }],
        [Array.from({ length: 51 }, (_, i) => `h${i}.example`), { allowed_landing_hosts: [expect.any(String)] }],
      ];
      for (const [list, fieldErrors] of cases) {
        const created = await api('POST', '/api/v1/links', { allowed_landing_hosts: list });
        expect([list, created.status]).toEqual([list, 400]);
        expect((await body(created)).error).toEqual({ formErrors: [], fieldErrors });
        const patched = await api('PATCH', `/api/v1/links/${plain.id}`, { allowed_landing_hosts: list });
        expect([list, patched.status]).toEqual([list, 400]);
        expect((await body(patched)).error).toEqual({ formErrors: [], fieldErrors });
      }
      expect((await body(await api('GET', `/api/v1/links/${plain.id}`))).allowed_landing_hosts).toBeNull();
      const fifty = Array.from({ length: 50 }, (_, i) => `h${i}.example`);
      expect((await body(await api('PATCH', `/api/v1/links/${plain.id}`, { allowed_landing_hosts: fifty }))).allowed_landing_hosts).toEqual(fifty);
    });
  });
}
