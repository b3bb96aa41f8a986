import { describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/db/postgres';
import { backends, createPostgres } from '../support/db';

/*
 * The Postgres adapter prepares statements, so Postgres may cache a plan per connection.
 * planEachCall sends an unnamed statement instead, planned anew on every call: the right plan
 * for a table that grows from empty (src/db/db.ts, QueryOptions).
 */
for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe(`statement plans on ${backend.name}`, async () => {
    const { url } = await createPostgres();

    test('a statement is prepared once per connection and may reuse a cached plan; planEachCall is never cached', async () => {
      const db = openPostgres(url, { max: 1 });
      try {
        const cachedText = "SELECT count(*)::int AS n FROM installs WHERE app_id = $1 AND device_id_hash = $2 AND 'cached' = 'cached'";
        const freshText = "SELECT count(*)::int AS n FROM installs WHERE app_id = $1 AND device_id_hash = $2 AND 'fresh' = 'fresh'";
        for (let i = 0; i < 8; i++) {
          expect(await db.query(cachedText, ['app', `device-${i}`])).toEqual([{ n: 0 }]);
          expect(await db.query(freshText, ['app', `device-${i}`], { planEachCall: true })).toEqual([{ n: 0 }]);
        }
        const prepared = await db.query<{ statement: string; generic_plans: number; custom_plans: number }>(
          "SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement LIKE '%installs%'",
        );
        expect(prepared).toHaveLength(1);
        expect(prepared[0]!.statement).toBe(cachedText);
        expect(prepared[0]!.generic_plans + prepared[0]!.custom_plans).toBe(8);
        expect(prepared[0]!.generic_plans).toBeGreaterThan(0); // the cached plan the option avoids
      } finally {
        await db.close();
      }
    });
  });
}
