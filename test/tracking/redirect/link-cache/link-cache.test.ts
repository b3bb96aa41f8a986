import { afterAll, describe, expect, test } from 'bun:test';
import { createServing } from '../../../../src/app';
import { openPostgres } from '../../../../src/db/postgres';
import { createLinkChanges, domainChange } from '../../../../src/tracking/redirect/link-cache/link-changes';
import { normaliseHost } from '../../../../src/tracking/redirect/link-cache/cache-keys';
import type { CompiledLink } from '../../../../src/tracking/redirect/link-cache/compiled-link';
import { createLinkCache } from '../../../../src/tracking/redirect/link-cache/link-cache';
import { backends, createPostgres } from '../../../support/db';
import { body, testApp, TEST_BASE_URL, TEST_TRACKING_URL } from '../../../support/app';
import { fakeDns } from '../../../domains/support';
import { insertLink, orgWithKey, verifiedDomain } from '../../../support/fixtures';

const TRACKING_HOST = 'track.test.local';
const randomSlug = () => `r${crypto.randomUUID().replaceAll('-', '')}`;

for (const backend of backends()) {
  describe(`link cache on ${backend.name}`, async () => {
    const db = await backend.create();
    const { orgId } = await orgWithKey(db);
    const linkChanges = createLinkChanges(db);
    const cacheWith = async (options: Parameters<typeof createLinkCache>[1] = {}, requireVerifiedDomains = true) => {
      const cache = createLinkCache({ db, trackingHost: TRACKING_HOST, linkChanges, requireVerifiedDomains }, options);
      await cache.start();
      return cache;
    };

    describe('happy', () => {
      test('a cached link is answered synchronously, without another query', async () => {
        const { slug, linkId } = await insertLink(db, orgId);
        const cache = await cacheWith();
        const first = await cache.lookup(TRACKING_HOST, slug);
        expect(first).toMatchObject({ id: linkId, orgId, serves: true, destination: 'https://shop.example.com/landing' });
        const lookups = cache.stats().databaseLookups;
        const second = cache.lookup(TRACKING_HOST, slug);
        expect(second).not.toBeInstanceOf(Promise);
        expect(second).toBe(first);
        expect(cache.stats().databaseLookups).toBe(lookups);
        cache.stop();
      });

      test('concurrent misses for one key share one query', async () => {
        const { slug } = await insertLink(db, orgId);
        const cache = await cacheWith();
        const results = await Promise.all(Array.from({ length: 50 }, () => cache.lookup(TRACKING_HOST, slug)));
        expect(new Set(results).size).toBe(1);
        expect(cache.stats().databaseLookups).toBe(1);
        cache.stop();
      });

      test('a published change drops the link at once: pause, destination, domain move', async () => {
        const { slug, linkId } = await insertLink(db, orgId);
        const cache = await cacheWith();
        expect(((await cache.lookup(TRACKING_HOST, slug)) as CompiledLink).serves).toBe(true);
        await db.query(`UPDATE links SET status = 'paused' WHERE id = $1`, [linkId]);
        await linkChanges.publish(linkId);
        expect(((await cache.lookup(TRACKING_HOST, slug)) as CompiledLink).serves).toBe(false);
        await db.query(`UPDATE links SET status = 'active', destination = 'https://new.example.com/' WHERE id = $1`, [linkId]);
        await linkChanges.publish(linkId);
        expect(((await cache.lookup(TRACKING_HOST, slug)) as CompiledLink).destination).toBe('https://new.example.com/');
        await verifiedDomain(db, orgId, 'moved.example.com');
        await db.query(`UPDATE links SET domain = 'moved.example.com' WHERE id = $1`, [linkId]);
        await linkChanges.publish(linkId);
        expect(await cache.lookup(TRACKING_HOST, slug)).toBeNull();
        expect(((await cache.lookup('moved.example.com', slug)) as CompiledLink).id).toBe(linkId);
        cache.stop();
      });

      test('a link created after a miss is found once its creation is published', async () => {
        const cache = await cacheWith();
        const slug = randomSlug();
        expect(await cache.lookup(TRACKING_HOST, slug)).toBeNull();
        expect(cache.lookup(TRACKING_HOST, slug)).toBeNull(); // negative entry, synchronous
        const { linkId } = await insertLink(db, orgId, { slug });
        await linkChanges.publish(linkId);
        expect(((await cache.lookup(TRACKING_HOST, slug)) as CompiledLink).id).toBe(linkId);
        cache.stop();
      });

      test('a link on a custom domain is unknown until the domain is verified; a domain change ends the negative entry', async () => {
        const host = `v-${randomSlug()}.example.com`;
        const { slug, linkId } = await insertLink(db, orgId, { domain: host });
        const cache = await cacheWith();
        expect(await cache.lookup(host, slug)).toBeNull();
        expect(cache.lookup(host, slug)).toBeNull(); // negative entry, synchronous
        await verifiedDomain(db, orgId, host);
        await linkChanges.publish(domainChange(host));
        expect(((await cache.lookup(host, slug)) as CompiledLink).id).toBe(linkId);
        cache.stop();
      });

      test('a domain change drops every cached link on that domain and only those', async () => {
        const host = `v-${randomSlug()}.example.com`;
        await verifiedDomain(db, orgId, host);
        const bound = [await insertLink(db, orgId, { domain: host }), await insertLink(db, orgId, { domain: host })];
        const plain = await insertLink(db, orgId);
        const cache = await cacheWith();
        for (const { slug } of bound) expect(await cache.lookup(host, slug)).not.toBeNull();
        expect(await cache.lookup(TRACKING_HOST, plain.slug)).not.toBeNull();
        const lookups = cache.stats().databaseLookups;
        await db.query('UPDATE link_domains SET verified_at = NULL WHERE domain = $1', [host]);
        await linkChanges.publish(domainChange(host));
        for (const { slug } of bound) expect(await cache.lookup(host, slug)).toBeNull();
        expect(cache.lookup(TRACKING_HOST, plain.slug)).not.toBeInstanceOf(Promise);
        expect(cache.stats().databaseLookups).toBe(lookups + bound.length);
        cache.stop();
      });

      test('with verification off every domain serves its links', async () => {
        const host = `v-${randomSlug()}.example.com`;
        const { slug, linkId } = await insertLink(db, orgId, { domain: host });
        const cache = await cacheWith({}, false);
        expect(((await cache.lookup(host, slug)) as CompiledLink).id).toBe(linkId);
        cache.stop();
      });

      test('hosts compare like the links API stores domains', () => {
        expect(normaliseHost('Go.Example.COM')).toBe('go.example.com');
        expect(normaliseHost('go.example.com.:8443')).toBe('go.example.com:8443');
        expect(normaliseHost('[::1]:3000')).toBe('[::1]:3000');
        expect(normaliseHost('track.test.local.')).toBe('track.test.local');
      });
    });

    describe('security', () => {
      test('a spray of random slugs neither grows memory nor queries the database per request', async () => {
        const { slug: known } = await insertLink(db, orgId);
        const frozen = () => 0;
        const cache = await cacheWith({ now: frozen, unknownLookupsPerSecond: 5, negativeCapacity: 100 });
        for (let i = 0; i < 3000; i++) await cache.lookup(TRACKING_HOST, randomSlug());
        const stats = cache.stats();
        expect(stats.databaseLookups).toBeLessThanOrEqual(5 + 30); // the budget, plus a few Bloom false positives
        expect(stats.refused).toBeGreaterThan(2900);
        expect(stats.negatives).toBeLessThanOrEqual(100);
        expect(stats.links).toBe(0);
        // A link that exists is still found under attack: the filter knows its key.
        expect(((await cache.lookup(TRACKING_HOST, known)) as CompiledLink).slug).toBe(known);
        cache.stop();
      });

      test('the negative cache is bounded even when every unknown slug reaches the database', async () => {
        const cache = await cacheWith({ unknownLookupsPerSecond: 1e9, negativeCapacity: 50 });
        for (let i = 0; i < 400; i++) await cache.lookup(TRACKING_HOST, randomSlug());
        expect(cache.stats().databaseLookups).toBe(400);
        expect(cache.stats().negatives).toBe(50);
        cache.stop();
      });

      test("a domain another organization holds and verified does not serve this organization's links", async () => {
        const host = `v-${randomSlug()}.example.com`;
        const other = await orgWithKey(db, 'Other');
        const own = await insertLink(db, orgId, { domain: host });
        await verifiedDomain(db, other.orgId, host);
        const theirs = await insertLink(db, other.orgId, { domain: host });
        const cache = await cacheWith();
        expect(await cache.lookup(host, own.slug)).toBeNull();
        expect(((await cache.lookup(host, theirs.slug)) as CompiledLink).orgId).toBe(other.orgId);
        cache.stop();
      });

      test('a link bound to a domain is not found on another host, nor a plain link on a custom domain', async () => {
        await verifiedDomain(db, orgId, 'brand.example.net');
        const bound = await insertLink(db, orgId, { domain: 'brand.example.net' });
        const plain = await insertLink(db, orgId);
        const cache = await cacheWith();
        expect(await cache.lookup(TRACKING_HOST, bound.slug)).toBeNull();
        expect(await cache.lookup('other.example.net', bound.slug)).toBeNull();
        expect(await cache.lookup('brand.example.net', plain.slug)).toBeNull();
        expect(((await cache.lookup('brand.example.net', bound.slug)) as CompiledLink).id).toBe(bound.linkId);
        cache.stop();
      });
    });
  });
}

if (process.env.DATABASE_URL) {
  describe('link cache across two nodes on postgres', async () => {
    let stopNodeB = async () => {};
    // Registered first, so node B and its own connection are gone before the shared test database is dropped.
    afterAll(() => stopNodeB());
    const { db: first, url } = await createPostgres();
    const second = openPostgres(url, { max: 4 });
    const nodeA = await testApp(first, {}, { mirror: false });
    const nodeB = await testApp(second, {}, { mirror: false });
    stopNodeB = async () => {
      await nodeB.services.stop();
      await second.close();
    };
    const org = await orgWithKey(first);
    const clickOn = (node: typeof nodeA, slug: string, host = TEST_TRACKING_URL) => node.request(`${host}/c/${slug}`);
    /** Resolves when node B hears about the link through Postgres NOTIFY. */
    const heardOnB = (linkId: string) =>
      new Promise<void>((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error(`node B never heard of ${linkId}`)), 5000);
        const unsubscribe = nodeB.services.linkChanges.subscribe((id) => {
          if (id !== linkId) return;
          clearTimeout(timeout);
          unsubscribe();
          // Subscribers run in order: the cache's own subscriber, registered first, has already run.
          resolve();
        });
      });

    test('a PATCH on one node is seen by the other through NOTIFY: pause, destination, domain', async () => {
      const created = await nodeA.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { destination: 'https://one.example.com/' } });
      const link = await body(created);
      expect((await clickOn(nodeB, link.slug)).headers.get('location')).toStartWith('https://one.example.com/');
      const patch = async (json: unknown) => {
        const heard = heardOnB(link.id);
        expect((await nodeA.request(`/api/v1/links/${link.id}`, { method: 'PATCH', headers: org.auth, json })).status).toBe(200);
        await heard;
      };
      await patch({ status: 'paused' });
      expect((await clickOn(nodeB, link.slug)).status).toBe(404);
      await patch({ status: 'active', destination: 'https://two.example.com/' });
      expect((await clickOn(nodeB, link.slug)).headers.get('location')).toStartWith('https://two.example.com/');
      await verifiedDomain(first, org.orgId, 'two-nodes.example.com');
      await patch({ domain: 'two-nodes.example.com' });
      expect((await clickOn(nodeB, link.slug)).status).toBe(404);
      expect((await clickOn(nodeB, link.slug, 'http://two-nodes.example.com')).status).toBe(302);
    });

    test("a domain's verification on one node starts and stops its links on the other through NOTIFY", async () => {
      const dns = fakeDns();
      const appA = createServing({ ...nodeA.services, resolveTxt: dns.resolveTxt });
      const host = `two-nodes-${randomSlug()}.example.com`;
      const verify = async () => {
        const heard = heardOnB(`domain:${host}`);
        const res = await appA.fetch(new Request(`${TEST_BASE_URL}/api/v1/domains/${host}/verify`, { method: 'POST', headers: org.auth }));
        expect(res.status).toBe(200);
        await heard;
        return body(res);
      };
      const link = await body(await nodeA.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { domain: host, destination: 'https://one.example.com/' } }));
      expect((await clickOn(nodeB, link.slug, `http://${host}`)).status).toBe(404);
      const { txt_record } = await verify();
      dns.set(txt_record.name, txt_record.value);
      expect((await verify()).verified).toBe(true);
      expect((await clickOn(nodeB, link.slug, `http://${host}`)).status).toBe(302);
      dns.records.delete(txt_record.name);
      expect((await verify()).verified).toBe(false);
      expect((await clickOn(nodeB, link.slug, `http://${host}`)).status).toBe(404);
    });

    test('a link created on one node ends the other node\'s negative entry', async () => {
      const slug = randomSlug();
      expect((await clickOn(nodeB, slug)).status).toBe(404);
      const heard = new Promise<void>((resolve) => {
        const unsubscribe = nodeB.services.linkChanges.subscribe(() => {
          unsubscribe();
          resolve();
        });
      });
      expect((await nodeA.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { slug, destination: 'https://new.example.com/' } })).status).toBe(201);
      await heard;
      expect((await clickOn(nodeB, slug)).status).toBe(302);
    });

    test('clicks answered by both nodes all land in the shared database', async () => {
      const created = await body(await nodeA.request('/api/v1/links', { method: 'POST', headers: org.auth, json: { destination: 'https://both.example.com/' } }));
      const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => clickOn(i % 2 ? nodeA : nodeB, created.slug)));
      expect(responses.every((res) => res.status === 302)).toBe(true);
      await Promise.all([nodeA.services.clickPipeline.flush(), nodeB.services.clickPipeline.flush()]);
      const rows = await first.query<{ n: number }>('SELECT count(DISTINCT id)::int AS n FROM clicks WHERE link_id = $1', [created.id]);
      expect(rows[0]!.n).toBe(60);
    });
  });
}
