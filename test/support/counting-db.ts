import type { Queryable } from '../../src/db/db';

/** Wraps `db` to count the statements whose text contains `needle` (a cache's lookups, say). */
export function countingQueries(db: Queryable, needle: string) {
  const counter = { lookups: 0 };
  const wrapped: Queryable = {
    query(text, params, options) {
      if (text.includes(needle)) counter.lookups++;
      return db.query(text, params, options);
    },
    exec: (script) => db.exec(script),
  };
  return { counter, wrapped };
}
