import { describe, expect, test } from 'bun:test';
import { newId } from '../../src/shared/ids';
import { body } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { auditRows, ISO, recordPublishes } from '../links/support';
import { appWithDns } from './support';

type Org = Awaited<ReturnType<typeof orgWithKey>>;

const freshHost = () => `go-${newId().toLowerCase()}.example.com`;
const TOKEN_VALUE = /^svc-verify=[A-Za-z0-9]{32}$/;

for (const backend of backends()) {
  describe(`custom domain verification on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await appWithDns(db);
    const { dns } = t;
    const publishes = recordPublishes(t.services.linkChanges);

    const createLink = async (org: Org, json: Record<string, unknown>) => t.request('/api/v1/links', { method: 'POST', headers: org.auth, json });
    const linkOn = async (org: Org, domain: string) => {
      const res = await createLink(org, { domain, destination: 'https://shop.example.com/' });
      expect(res.status).toBe(201);
      return body(res);
    };
    const verify = (org: Org, domain: string) => t.request(`/api/v1/domains/${domain}/verify`, { method: 'POST', headers: org.auth });
    const domainsOf = async (org: Org) => {
      const res = await t.request('/api/v1/domains', { headers: org.auth });
      expect(res.status).toBe(200);
      return (await body(res)).data as any[];
    };
    /** The TXT record the organization is asked to publish for `domain`. */
    const txtFor = async (org: Org, domain: string) => {
      const res = await verify(org, domain);
      expect(res.status).toBe(200);
      return (await body(res)).txt_record as { type: string; name: string; value: string };
    };
    const click = (host: string, slug: string) => t.request(`http://${host}/c/${slug}`, { headers: { 'user-agent': 'Mozilla/5.0' } });
    const claim = async (domain: string) => (await db.query('SELECT org_id, verified_at, check_error FROM link_domains WHERE domain = $1', [domain]))[0];

    describe('happy', () => {
      test('a link on an unverified domain is created, says why it does not serve, and serves once the TXT record is verified', async () => {
        const org = await orgWithKey(db);
        const host = freshHost();
        const link = await linkOn(org, host);
        expect(link).toMatchObject({ domain: host, domain_status: 'unverified' });
        expect(link.domain_note).toContain(`POST /api/v1/domains/${host}/verify`);
        const notServed = await click(host, link.slug);
        expect(notServed.status).toBe(404);
        expect(await body(notServed)).toEqual({ error: 'link not found' });

        const [listed] = await domainsOf(org);
        expect(listed).toEqual({
          domain: host,
          status: 'unverified',
          verified: false,
          verified_at: null,
          checked_at: null,
          check_error: null,
          txt_record: { type: 'TXT', name: `_svc-verify.${host}`, value: expect.stringMatching(TOKEN_VALUE) },
        });

        dns.set(listed.txt_record.name, listed.txt_record.value);
        await publishes.reset();
        const res = await verify(org, host);
        expect(res.status).toBe(200);
        const verified = await body(res);
        expect(verified).toMatchObject({ domain: host, status: 'verified', verified: true, check_error: null, txt_record: listed.txt_record });
        expect(verified.verified_at).toMatch(ISO);
        expect(verified.checked_at).toMatch(ISO);
        expect(dns.lookups.at(-1)).toBe(`_svc-verify.${host}`);
        await publishes.settle();
        expect(publishes.seen).toContain(`domain:${host}`);

        const served = await click(host, link.slug);
        expect(served.status).toBe(302);
        expect(served.headers.get('location')).toStartWith('https://shop.example.com/?svc_click_id=');
        const read = await body(await t.request(`/api/v1/links/${link.id}`, { headers: org.auth }));
        expect(read).toMatchObject({ domain_status: 'verified', domain_note: null });
        expect((await domainsOf(org))[0]).toMatchObject({ status: 'verified', verified: true, verified_at: verified.verified_at });
        expect((await auditRows(db, org.keyId)).at(-1)).toMatchObject({ action: 'verify', entity: 'domain', entity_id: host, org_id: org.orgId });
      });

      test('a domain verified before any link serves its first link at once; one token per organization, the port is not part of the name', async () => {
        const org = await orgWithKey(db);
        const host = freshHost();
        const first = await txtFor(org, host);
        const second = await txtFor(org, `${host}:8443`);
        expect(second).toEqual(first);
        expect(first.name).toBe(`_svc-verify.${host}`);
        // Among other TXT records, and split into character strings as long values are.
        dns.records.set(first.name, [['v=spf1 -all'], [first.value.slice(0, 12), first.value.slice(12)]]);
        expect(await body(await verify(org, `${host}:8443`))).toMatchObject({ domain: `${host}:8443`, verified: true });
        const link = await linkOn(org, `${host}:8443`);
        expect(link.domain_status).toBe('verified');
        expect((await click(`${host}:8443`, link.slug)).status).toBe(302);
        // The port makes another domain: the bare name is still unverified.
        expect((await linkOn(org, host)).domain_status).toBe('unverified');
      });

      test('a verified domain keeps serving through a failed lookup, and stops once the record is gone', async () => {
        const org = await orgWithKey(db);
        const host = freshHost();
        const record = await txtFor(org, host);
        dns.set(record.name, record.value);
        expect((await body(await verify(org, host))).verified).toBe(true);
        const link = await linkOn(org, host);
        expect((await click(host, link.slug)).status).toBe(302);

        dns.failures.set(record.name, 'ESERVFAIL');
        const failed = await body(await verify(org, host));
        expect(failed).toMatchObject({ verified: true, status: 'verified' });
        expect(failed.check_error).toContain('ESERVFAIL');
        expect((await click(host, link.slug)).status).toBe(302);

        dns.failures.delete(record.name);
        dns.records.delete(record.name);
        const gone = await body(await verify(org, host));
        expect(gone).toMatchObject({ verified: false, status: 'unverified', verified_at: null, check_error: `no TXT record at ${record.name}` });
        expect((await click(host, link.slug)).status).toBe(404);
        expect((await body(await t.request(`/api/v1/links/${link.id}`, { headers: org.auth }))).domain_status).toBe('unverified');
      });
    });

    describe('error', () => {
      test('no TXT record, a wrong token, or another organization\'s token: the domain stays unverified and its links answer 404', async () => {
        const org = await orgWithKey(db);
        const other = await orgWithKey(db, 'Other');
        const host = freshHost();
        const link = await linkOn(org, host);
        const name = `_svc-verify.${host}`;
        const otherToken = (await txtFor(other, freshHost())).value;
        for (const values of [[], ['svc-verify=wrongtokenwrongtokenwrongtoken12'], [otherToken], ['svc-verify=']]) {
          if (values.length === 0) dns.records.delete(name);
          else dns.set(name, ...values);
          const res = await verify(org, host);
          expect(res.status).toBe(200);
          const answer = await body(res);
          expect(answer).toMatchObject({ verified: false, status: 'unverified', verified_at: null });
          expect(answer.check_error).toStartWith(`no TXT record at ${name}`);
          expect((await click(host, link.slug)).status).toBe(404);
        }
        expect(await claim(host)).toMatchObject({ org_id: org.orgId, verified_at: null });
      });

      test('a lookup that fails leaves an unverified domain unverified', async () => {
        const org = await orgWithKey(db);
        const host = freshHost();
        const link = await linkOn(org, host);
        dns.failures.set(`_svc-verify.${host}`, 'ETIMEOUT');
        const answer = await body(await verify(org, host));
        expect(answer).toMatchObject({ verified: false });
        expect(answer.check_error).toContain('ETIMEOUT');
        expect((await click(host, link.slug)).status).toBe(404);
      });

      test('a malformed domain or the tracking host is a 400 that writes nothing; no key is 401', async () => {
        const org = await orgWithKey(db);
        for (const domain of ['not_a_host', 'localhost', '1.2.3.4', 'TRACK.test.local']) {
          const res = await verify(org, domain);
          expect(res.status).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['domain']);
        }
        expect(await auditRows(db, org.keyId)).toEqual([]);
        expect((await t.request(`/api/v1/domains/${freshHost()}/verify`, { method: 'POST' })).status).toBe(401);
        expect((await t.request('/api/v1/domains')).status).toBe(401);
        expect((await t.request(`/api/v1/domains/${freshHost()}/verify`, { headers: org.auth })).status).toBe(405);
      });
    });

    describe('security', () => {
      test("another organization can neither verify nor use a verified domain, even with its own token published beside the owner's", async () => {
        const owner = await orgWithKey(db, 'Owner');
        const intruder = await orgWithKey(db, 'Intruder');
        const host = freshHost();
        const link = await linkOn(owner, host);
        const ownerRecord = await txtFor(owner, host);
        dns.set(ownerRecord.name, ownerRecord.value);
        expect((await body(await verify(owner, host))).verified).toBe(true);
        const before = await claim(host);

        const intruderToken = (await txtFor(intruder, freshHost())).value;
        dns.set(ownerRecord.name, ownerRecord.value, intruderToken);
        const res = await verify(intruder, host);
        expect(res.status).toBe(409);
        expect(await body(res)).toEqual({ error: 'domain taken' });
        expect(await claim(host)).toEqual(before);
        expect((await auditRows(db, intruder.keyId)).filter((row) => row.entity_id === host)).toEqual([]);

        const intruding = await createLink(intruder, { domain: host, slug: `x${newId()}` });
        expect(intruding.status).toBe(409);
        expect(await body(intruding)).toEqual({ error: 'domain taken' });
        expect((await click(host, link.slug)).status).toBe(302);
      });

      test('the first organization to verify a name takes it from an unverified holder, whose links never serve on it', async () => {
        const squatter = await orgWithKey(db, 'Squatter');
        const owner = await orgWithKey(db, 'Owner');
        const host = freshHost();
        const squatted = await linkOn(squatter, host);
        // Without proof the owner cannot bind links to a name another organization holds.
        expect((await createLink(owner, { domain: host })).status).toBe(409);
        const failed = await verify(owner, host);
        expect(failed.status).toBe(409);
        expect((await claim(host))!.org_id).toBe(squatter.orgId);

        const record = await txtFor(owner, freshHost());
        dns.set(`_svc-verify.${host}`, record.value);
        const taken = await verify(owner, host);
        expect(taken.status).toBe(200);
        expect(await body(taken)).toMatchObject({ domain: host, verified: true });
        const own = await linkOn(owner, host);
        expect((await click(host, own.slug)).status).toBe(302);
        expect((await click(host, squatted.slug)).status).toBe(404);

        const seen = await body(await t.request(`/api/v1/links/${squatted.id}`, { headers: squatter.auth }));
        expect(seen).toMatchObject({ domain_status: 'taken' });
        expect(seen.domain_note).toContain('verified by another organization');
        const listed = (await domainsOf(squatter)).find((entry) => entry.domain === host);
        expect(listed).toMatchObject({ status: 'taken', verified: false, verified_at: null, checked_at: null, check_error: null });
        // Its own token in DNS does not win the name back while the owner's is still there.
        const squatterRecord = await txtFor(squatter, freshHost());
        dns.set(`_svc-verify.${host}`, record.value, squatterRecord.value);
        expect((await verify(squatter, host)).status).toBe(409);
      });

      test("a verified name moves to the organization whose token replaced the holder's in DNS, and the old holder's links stop at once", async () => {
        const former = await orgWithKey(db, 'Former');
        const next = await orgWithKey(db, 'Next');
        const host = freshHost();
        const formerRecord = await txtFor(former, host);
        dns.set(formerRecord.name, formerRecord.value);
        expect((await body(await verify(former, host))).verified).toBe(true);
        const old = await linkOn(former, host);
        expect((await click(host, old.slug)).status).toBe(302);

        const nextRecord = await txtFor(next, freshHost());
        dns.set(formerRecord.name, nextRecord.value);
        expect((await body(await verify(next, host))).verified).toBe(true);
        expect(await claim(host)).toMatchObject({ org_id: next.orgId });
        expect((await click(host, old.slug)).status).toBe(404);
      });

      test("the domains list holds only the organization's own names", async () => {
        const a = await orgWithKey(db, 'A');
        const b = await orgWithKey(db, 'B');
        const hostA = freshHost();
        const hostB = freshHost();
        await linkOn(a, hostA);
        await linkOn(b, hostB);
        const listA = await domainsOf(a);
        const listB = await domainsOf(b);
        expect(listA.map((entry) => entry.domain)).toEqual([hostA]);
        expect(listB.map((entry) => entry.domain)).toEqual([hostB]);
        expect(listA[0].txt_record.value).not.toBe(listB[0].txt_record.value);
      });
    });
  });

  describe(`DOMAIN_VERIFICATION=off on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await appWithDns(db, { DOMAIN_VERIFICATION: 'off' });
    const org = await orgWithKey(db);
    const other = await orgWithKey(db, 'Other');

    test('every custom domain serves its links without a check, and a domain still belongs to its first organization', async () => {
      const host = freshHost();
      const res = await t.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { domain: host, destination: 'https://shop.example.com/' } });
      expect(res.status).toBe(201);
      const link = await body(res);
      expect(link).toMatchObject({ domain_status: 'not_required', domain_note: null });
      expect((await t.request(`http://${host}/c/${link.slug}`)).status).toBe(302);
      expect(t.dns.lookups).toEqual([]);
      expect((await t.request('/api/v1/links', { method: 'POST', headers: other.auth, json: { domain: host } })).status).toBe(409);
    });
  });
}
