import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { createApiKeyCache } from '../../src/auth/api-key-cache';
import { revokeApiKey } from '../../src/auth/api-keys';
import type { Queryable } from '../../src/db/db';
import { body, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { countingQueries } from '../support/counting-db';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';

const counting = (db: Queryable) => countingQueries(db, 'FROM api_keys WHERE prefix');

for (const backend of backends()) {
  describe(`API key cache on ${backend.name}`, async () => {
    const db = await backend.create();

    test('a live key is looked up once and then answered from memory until it expires', async () => {
      const org = await orgWithKey(db);
      const { counter, wrapped } = counting(db);
      let clock = 1_000;
      const cache = createApiKeyCache(wrapped, { ttlMs: 500, now: () => clock });
      for (let i = 0; i < 3; i++) expect(await cache.authenticate(org.apiKey)).toEqual({ keyId: org.keyId, orgId: org.orgId, rateLimitPerMinute: null });
      expect(counter.lookups).toBe(1);
      clock += 500;
      expect(await cache.authenticate(org.apiKey)).not.toBeNull();
      expect(counter.lookups).toBe(2);
    });

    test('a cached prefix with another secret is refused; wrong and unknown keys are never cached', async () => {
      const org = await orgWithKey(db);
      const { counter, wrapped } = counting(db);
      const cache = createApiKeyCache(wrapped);
      await cache.authenticate(org.apiKey);
      const samePrefixOtherSecret = org.apiKey.slice(0, 17) + (org.apiKey.endsWith('A') ? 'B' : 'A').repeat(24);
      expect(await cache.authenticate(samePrefixOtherSecret)).toBeNull();
      const unknown = `svc_live_${'Z'.repeat(32)}`;
      expect(await cache.authenticate(unknown)).toBeNull();
      expect(await cache.authenticate(unknown)).toBeNull();
      expect(counter.lookups).toBe(3); // the live key once, the unknown key every time
      expect(await cache.authenticate('not-a-key')).toBeNull();
      expect(await cache.authenticate(undefined)).toBeNull();
      expect(counter.lookups).toBe(3);
    });

    test('forget drops a key, and a revoked key is not found again once its entry expires', async () => {
      const org = await orgWithKey(db);
      let clock = 0;
      const cache = createApiKeyCache(db, { ttlMs: 100, now: () => clock });
      expect(await cache.authenticate(org.apiKey)).not.toBeNull();
      await revokeApiKey(db, org.orgId, org.keyId);
      cache.forget(org.keyId);
      expect(await cache.authenticate(org.apiKey)).toBeNull();
      clock += 100;
      expect(await cache.authenticate(org.apiKey)).toBeNull();
    });

    test('the cache holds at most maxEntries keys, dropping the oldest', async () => {
      const keys = await Promise.all([orgWithKey(db), orgWithKey(db), orgWithKey(db)]);
      const { counter, wrapped } = counting(db);
      const cache = createApiKeyCache(wrapped, { maxEntries: 2 });
      for (const key of keys) await cache.authenticate(key.apiKey);
      await cache.authenticate(keys[2]!.apiKey);
      expect(counter.lookups).toBe(3);
      await cache.authenticate(keys[0]!.apiKey);
      expect(counter.lookups).toBe(4);
    });

    test('conversions authenticate from the cache, and a key revoked on another node stores nothing', async () => {
      const nodeA = await testApp(db, {}, { mirror: false, workers: false });
      const nodeB = await testApp(db, {}, { mirror: false, workers: false });
      const org = await orgWithKey(db);
      const clickId = await insertClick(db, { orgId: org.orgId });
      const seen: (string | null | undefined)[] = [];
      const authenticate = nodeA.services.apiKeyCache.authenticate;
      nodeA.services.apiKeyCache.authenticate = (presented) => {
        seen.push(presented);
        return authenticate(presented);
      };
      const post = (json: unknown) => nodeA.request('/api/v1/conversions', { method: 'POST', headers: org.auth, json });
      expect((await post({ click_id: clickId })).status).toBe(201);
      expect(seen).toEqual([org.apiKey]);
      // Reads do not use the cache.
      expect((await nodeA.request('/api/v1/conversions', { headers: org.auth })).status).toBe(200);
      expect(seen).toHaveLength(1);

      // Node B revokes the key; node A still holds it in its cache.
      const session = await body(await nodeB.request('/api/v1/conversions', { headers: org.auth }));
      expect(session.data).toHaveLength(1);
      await revokeApiKey(db, org.orgId, org.keyId);
      for (const json of [{ click_id: clickId }, { click_id: 'unknown-click' }, { gclid: 'G-none' }]) {
        const res = await post(json);
        expect(res.status).toBe(401);
        expect(await body(res)).toEqual({ error: 'unauthorized' });
      }
      expect((await nodeA.request(`/postback?click_id=${clickId}&api_key=${org.apiKey}`)).status).toBe(401);
      expect(seen).toHaveLength(5);
      expect(await db.query('SELECT 1 FROM conversions WHERE org_id = $1', [org.orgId])).toHaveLength(1);
    });
  });
}
