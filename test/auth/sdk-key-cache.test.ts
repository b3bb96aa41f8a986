import { describe, expect, test } from 'bun:test';
import { createSdkKeyCache } from '../../src/auth/sdk-key-cache';
import type { Queryable } from '../../src/db/db';
import { testApp } from '../support/app';
import { countingQueries } from '../support/counting-db';
import { backends } from '../support/db';
import { insertApp, orgWithKey } from '../support/fixtures';

const counting = (db: Queryable) => countingQueries(db, 'FROM apps WHERE sdk_key_hash');

for (const backend of backends()) {
  describe(`SDK key cache on ${backend.name}`, async () => {
    const db = await backend.create();

    test('an app is looked up once, then answered from memory until the entry expires; settings changes show after that', async () => {
      const org = await orgWithKey(db);
      const app = await insertApp(db, org.orgId, { reattributionDays: 30 });
      const { counter, wrapped } = counting(db);
      let clock = 0;
      const cache = createSdkKeyCache(wrapped, { ttlMs: 5_000, now: () => clock });
      expect(await cache.authenticate(app.sdkKey)).toMatchObject({ appId: app.appId, orgId: org.orgId, reattributionDays: 30 });
      await db.query('UPDATE apps SET reattribution_days = 7 WHERE id = $1', [app.appId]);
      expect((await cache.authenticate(app.sdkKey))!.reattributionDays).toBe(30);
      expect(counter.lookups).toBe(1);
      clock += 5_000;
      expect((await cache.authenticate(app.sdkKey))!.reattributionDays).toBe(7);
      expect(counter.lookups).toBe(2);
    });

    test('unknown and malformed keys are refused and never cached', async () => {
      const { counter, wrapped } = counting(db);
      const cache = createSdkKeyCache(wrapped);
      const unknown = `sk_${'Q'.repeat(32)}`;
      expect(await cache.authenticate(unknown)).toBeNull();
      expect(await cache.authenticate(unknown)).toBeNull();
      expect(counter.lookups).toBe(2);
      expect(await cache.authenticate('sk_short')).toBeNull();
      expect(await cache.authenticate(null)).toBeNull();
      expect(counter.lookups).toBe(2);
    });

    test('the cache holds at most maxEntries apps, dropping the oldest', async () => {
      const org = await orgWithKey(db);
      const apps = [await insertApp(db, org.orgId), await insertApp(db, org.orgId), await insertApp(db, org.orgId)];
      const { counter, wrapped } = counting(db);
      const cache = createSdkKeyCache(wrapped, { maxEntries: 2 });
      for (const app of apps) await cache.authenticate(app.sdkKey);
      await cache.authenticate(apps[2]!.sdkKey);
      expect(counter.lookups).toBe(3);
      await cache.authenticate(apps[0]!.sdkKey);
      expect(counter.lookups).toBe(4);
    });

    test('the SDK endpoints authenticate through the node cache; a wrong key still answers 401', async () => {
      const t = await testApp(db, {}, { mirror: false, workers: false });
      const org = await orgWithKey(db);
      const app = await insertApp(db, org.orgId);
      const seen: (string | null | undefined)[] = [];
      const authenticate = t.services.sdkKeyCache.authenticate;
      t.services.sdkKeyCache.authenticate = (presented) => {
        seen.push(presented);
        return authenticate(presented);
      };
      const install = (key: string) => t.request('/api/sdk/v1/install', { method: 'POST', headers: { 'x-sdk-key': key }, json: { device_id: 'device-1', platform: 'android' } });
      expect((await install(app.sdkKey)).status).toBe(201);
      expect((await install(`sk_${'W'.repeat(32)}`)).status).toBe(401);
      expect(seen).toEqual([app.sdkKey, `sk_${'W'.repeat(32)}`]);
    });
  });
}
