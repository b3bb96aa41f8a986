import { describe, expect, test } from 'bun:test';
import type { ClickRoute } from '../../../src/tracking/click.model';
import { insertClicks } from '../../../src/tracking/pipeline/records.repo';
import { backends } from '../../support/db';
import { orgWithKey } from '../../support/fixtures';
import { makeClick } from '../support';

const ROUTE: ClickRoute = { rule_index: 0, rule_name: 'quote " and \\ tab\t', action: 'deep_link', variant_index: null, page: 'qr' };

for (const backend of backends()) {
  describe(`click records on ${backend.name}`, async () => {
    const db = await backend.create();
    const routes = async (ids: string[]) =>
      (await db.query<{ id: string; route: ClickRoute | null }>('SELECT id, route FROM clicks WHERE id = ANY($1::text[]) ORDER BY id', [ids])).map((row) => row.route);

    test('a route is stored as jsonb by COPY, and null stays NULL', async () => {
      const { orgId } = await orgWithKey(db);
      const clicks = [makeClick(orgId, { route: ROUTE }), makeClick(orgId)];
      await insertClicks(db, clicks);
      expect(await routes(clicks.map((c) => c.id))).toEqual([ROUTE, null]);
      const [kind] = await db.query<{ kind: string }>("SELECT jsonb_typeof(route) AS kind FROM clicks WHERE id = $1", [clicks[0]!.id]);
      expect(kind!.kind).toBe('object');
    });

    test('a batch replayed over stored rows (the recordset INSERT) keeps the route too', async () => {
      const { orgId } = await orgWithKey(db);
      const stored = makeClick(orgId, { route: ROUTE });
      await insertClicks(db, [stored]);
      const fresh = makeClick(orgId, { route: { ...ROUTE, action: 'variants', variant_index: 1, page: null } });
      await insertClicks(db, [stored, fresh]);
      const [row] = await db.query<{ route: ClickRoute }>('SELECT route FROM clicks WHERE id = $1', [fresh.id]);
      expect(row!.route).toEqual({ ...ROUTE, action: 'variants', variant_index: 1, page: null });
    });
  });
}
