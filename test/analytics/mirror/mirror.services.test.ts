import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { testApp } from '../../support/app';
import { eventually } from '../../support/wait';
import { newId } from '../../../src/shared/ids';
import { countFor, newOrg, testMirror } from './mirror.helpers';

// Database boots and DuckDB files on a shared, loaded machine (hooks too); no assertion depends on time.
setDefaultTimeout(30_000);

for (const backend of backends()) {
  describe(`analytics mirror in the services on ${backend.name}`, async () => {
    const db = await backend.create();

    test('services keep the mirror in DATA_DIR/analytics.duckdb and catchUp brings new rows', async () => {
      const { services, config } = await testApp(db, { MIRROR_INTERVAL_MS: '0' });
      expect(existsSync(join(config.dataDir, 'analytics.duckdb'))).toBe(true);
      const org = newOrg();
      await insertClick(db, { orgId: org });
      await services.mirror.catchUp();
      expect(await countFor(services.mirror, 'clicks', org)).toEqual({ rows: 1, ids: 1 });
    });

    test('the interval copies rows without anyone asking', async () => {
      const { services } = await testApp(db, { MIRROR_INTERVAL_MS: '20' });
      const org = newOrg();
      await insertClick(db, { orgId: org });
      const copied = async () => (await countFor(services.mirror, 'clicks', org).catch(() => ({ rows: 0 }))).rows === 1;
      await eventually(copied);
      expect(await countFor(services.mirror, 'clicks', org)).toEqual({ rows: 1, ids: 1 });
    });

    test('stopping the services copies what is left before DuckDB closes', async () => {
      const { services, config } = await testApp(db, { MIRROR_INTERVAL_MS: '0' });
      const org = newOrg();
      await insertClick(db, { orgId: org });
      await services.stop();
      const reopened = await testMirror({ db, path: join(config.dataDir, 'analytics.duckdb') });
      expect(await countFor(reopened, 'clicks', org)).toEqual({ rows: 1, ids: 1 });
    });

    test('a stop at its deadline gives the mirror one batch a table: the rest waits for the next start', async () => {
      const { services, config } = await testApp(db, { MIRROR_INTERVAL_MS: '0' });
      const org = newOrg();
      // More than the mirror's batch of 5000, so a full catch-up and a single batch differ.
      await db.query(
        `INSERT INTO clicks (id, org_id, created_at, next_hop_url)
         SELECT $1 || g, $2, now(), 'https://example.com/landing' FROM generate_series(1, 12000) AS g`,
        [`${newId()}-`, org],
      );
      await services.stop({ deadline: Date.now() });
      const path = join(config.dataDir, 'analytics.duckdb');
      const reopened = await testMirror({ db, path, intervalMs: 0 });
      expect(await reopened.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM clicks')).toEqual([{ n: 5000 }]);
      await reopened.catchUp();
      expect(await countFor(reopened, 'clicks', org)).toEqual({ rows: 12000, ids: 12000 });
    });
  });
}
