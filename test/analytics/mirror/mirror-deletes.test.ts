import { describe, expect, test } from 'bun:test';
import { MIRRORED_TABLES } from '../../../src/analytics/mirror/mirror-tables';
import { eraseClicks } from '../../../src/privacy/erasure-rows.repo';
import { insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { countFor, newOrg, testMirror, tempDuckFile } from './mirror.helpers';

for (const backend of backends()) {
  describe(`deletes reach every mirror on ${backend.name}`, async () => {
    const db = await backend.create();

    test('each node drops the deleted rows on its next round, one that was stopped when it comes back', async () => {
      const org = newOrg();
      const [gone, kept] = [await insertClick(db, { orgId: org }), await insertClick(db, { orgId: org })];
      const first = await testMirror({ db });
      const laterPath = tempDuckFile();
      let later = await testMirror({ db, path: laterPath });
      await first.catchUp();
      await later.catchUp();
      expect(await countFor(later, 'clicks', org)).toEqual({ rows: 2, ids: 2 });
      await later.stop();

      await db.transaction((tx) => eraseClicks(tx, org, [gone]));
      await first.catchUp();
      expect(await first.query('SELECT id FROM clicks WHERE org_id = $1', [org])).toEqual([{ id: kept }]);
      expect(await first.query('SELECT * FROM mirror_deletions')).toEqual([]);

      later = await testMirror({ db, path: laterPath });
      await later.catchUp();
      expect(await later.query('SELECT id FROM clicks WHERE org_id = $1', [org])).toEqual([{ id: kept }]);
      // A mirror built afterwards never had the row, and finds the log spent.
      const fresh = await testMirror({ db });
      await fresh.catchUp();
      expect(await fresh.query('SELECT id FROM clicks WHERE org_id = $1', [org])).toEqual([{ id: kept }]);
    });

    test('the log is copied after every other table, so a row copied in the same round is deleted too', () => {
      expect(MIRRORED_TABLES.at(-1)).toBe('mirror_deletions');
    });
  });
}
