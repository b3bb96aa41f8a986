import { describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/db/postgres';
import { backends, createPostgres } from '../support/db';

/*
 * The Postgres adapter prepares statements, so Postgres may cache a plan per connection.
 * planEachCall runs the statement where Postgres plans it anew on every call: the right plan
 * for a table that grows from empty (src/db/db.ts, QueryOptions).
 */
for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe(`statement plans on ${backend.name}`, async () => {
    const { url } = await createPostgres();

    test('a statement is prepared once per connection and may reuse a cached plan; with planEachCall it is planned every time', async () => {
      // One connection in each pool, so both views below see the statements' own connection.
      const db = openPostgres(url, { max: 1 });
      try {
        const cachedText = "SELECT count(*)::int AS n FROM installs WHERE app_id = $1 AND device_id_hash = $2 AND 'cached' = 'cached'";
        const freshText = "SELECT count(*)::int AS n FROM installs WHERE app_id = $1 AND device_id_hash = $2 AND 'fresh' = 'fresh'";
        for (let i = 0; i < 8; i++) {
          expect(await db.query(cachedText, ['app', `device-${i}`])).toEqual([{ n: 0 }]);
          expect(await db.query(freshText, ['app', `device-${i}`], { planEachCall: true })).toEqual([{ n: 0 }]);
        }
        const plans = (options?: { planEachCall: true }) =>
          db.query<{ statement: string; generic_plans: number; custom_plans: number }>(
            "SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement LIKE '%FROM installs%' ORDER BY statement",
            [],
            options,
          );
        // The shared connection: the plain statement, reusing a cached (generic) plan.
        const shared = await plans();
        expect(shared.map((p) => p.statement)).toEqual([cachedText]);
        expect(shared[0]!.generic_plans + shared[0]!.custom_plans).toBe(8);
        expect(shared[0]!.generic_plans).toBeGreaterThan(0); // the cached plan the option avoids
        // The planned-per-call connection: the statement is prepared, but never reuses a plan.
        const fresh = (await plans({ planEachCall: true })).filter((p) => p.statement === freshText);
        expect(fresh).toHaveLength(1);
        expect(fresh[0]!).toMatchObject({ generic_plans: 0, custom_plans: 8 });
      } finally {
        await db.close();
      }
    });
  });
}
