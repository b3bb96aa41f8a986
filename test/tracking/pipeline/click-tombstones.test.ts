import { describe, expect, test } from 'bun:test';
import { createClickTombstones } from '../../../src/tracking/pipeline/click-tombstones';
import { sha256Hex } from '../../../src/shared/crypto/secrets';
import { newId } from '../../../src/shared/ids';
import { backends } from '../../support/db';

for (const backend of backends()) {
  describe(`click tombstones on ${backend.name}`, async () => {
    const db = await backend.create();
    const bury = (orgId: string, id: string) =>
      db.query('INSERT INTO click_tombstones (org_id, id_prefix, id_hash) VALUES ($1, $2, $3)', [orgId, id.slice(0, 10), sha256Hex(id)]);

    test('drops only the records named, in their own organization; the first read is awaited, later ones run behind', async () => {
      let now = 0;
      const tombstones = createClickTombstones(db, 5_000, () => now);
      const [a, b, c] = [newId(), newId(), newId()];
      const records = [
        { id: a, org_id: 'org-1' },
        { id: b, org_id: 'org-1' },
        { id: c, org_id: 'org-2' },
      ];
      expect(await tombstones.keep(records)).toEqual(records);
      await bury('org-1', a);
      // Same-prefix id of another organization: named for org-2 only.
      await bury('org-2', b);
      now = 4_999;
      expect(tombstones.keep(records)).toEqual(records);
      // Stale: answered from what was read, and read again behind the answer.
      now = 5_000;
      expect(tombstones.keep(records)).toEqual(records);
      await tombstones.load();
      expect(tombstones.keep(records)).toEqual(records.slice(1));
      await bury('org-2', c);
      now = 10_000;
      tombstones.keep(records);
      await tombstones.load();
      expect(tombstones.keep(records)).toEqual(records.slice(1, 2));
    });
  });
}
