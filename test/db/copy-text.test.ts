import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { copyText } from '../../src/db/copy-text';
import { backends } from '../support/db';

describe('copyText', () => {
  test('tabs between values, a newline after each row, NULL as \\N, the four special characters escaped', () => {
    const rows = [
      { a: 'plain', b: null, c: true, d: 7 },
      { a: 'tab\there\\slash', b: 'line\nbreak\r', c: false, d: -1.5 },
    ];
    expect(copyText(rows, ['a', 'b', 'c', 'd'])).toBe('plain\t\\N\tt\t7\ntab\\there\\\\slash\tline\\nbreak\\r\tf\t-1.5\n');
  });

  test('a missing field is NULL, a Date is ISO 8601, an object is JSON; columns follow the given order', () => {
    const at = new Date('2026-09-02T10:00:00.123Z');
    expect(copyText([{ b: at, c: { k: 'v\t1' } }], ['c', 'a', 'b'])).toBe('{"k":"v\\\\t1"}\t\\N\t2026-09-02T10:00:00.123Z\n');
  });

  test('no rows is no text', () => {
    expect(copyText([], ['a'])).toBe('');
  });
});

/** Text Postgres can hold: any string without U+0000 (which no text value may contain). */
const storableText = fc.string({ unit: 'binary', maxLength: 40 }).map((text) => text.replaceAll('\0', ''));
/** Strings made mostly of the characters the format escapes, so every escape meets every neighbour. */
const trickyText = fc.array(fc.constantFrom('\\', '\t', '\n', '\r', 'N', '\\N', 'a', 'é', '😀', ' '), { maxLength: 12 }).map((parts) => parts.join(''));
const row = fc.record({
  t: fc.option(fc.oneof(storableText, trickyText), { nil: null }),
  b: fc.option(fc.boolean(), { nil: null }),
  i: fc.option(fc.integer(), { nil: null }),
  j: fc.option(fc.dictionary(fc.oneof(storableText, trickyText), fc.oneof(storableText, trickyText), { maxKeys: 3 }), { nil: null }),
});

for (const backend of backends()) {
  describe(`copyFrom on ${backend.name}`, () => {
    test('any rows copyText writes come back from the table exactly (property)', async () => {
      const db = await backend.create();
      await db.exec('CREATE TABLE copy_round_trip (n integer PRIMARY KEY, t text, b boolean, i integer, j jsonb)');
      let next = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(row, { maxLength: 8 }), async (rows) => {
          const numbered = rows.map((values) => ({ n: next++, ...values }));
          await db.copyFrom('copy_round_trip', ['n', 't', 'b', 'i', 'j'], copyText(numbered, ['n', 't', 'b', 'i', 'j']));
          const stored = await db.query('SELECT n, t, b, i, j FROM copy_round_trip WHERE n >= $1 ORDER BY n', [numbered[0]?.n ?? next]);
          expect(stored).toEqual(numbered);
        }),
        { numRuns: 60 },
      );
    });

    test('a row already stored fails the whole COPY with a unique violation and stores none of it; the handle stays usable', async () => {
      const db = await backend.create();
      await db.exec('CREATE TABLE copy_conflict (id text PRIMARY KEY)');
      await db.copyFrom('copy_conflict', ['id'], copyText([{ id: 'a' }, { id: 'b' }], ['id']));
      await expect(db.copyFrom('copy_conflict', ['id'], copyText([{ id: 'c' }, { id: 'a' }, { id: 'd' }], ['id']))).rejects.toMatchObject({ code: '23505' });
      expect(await db.query('SELECT id FROM copy_conflict ORDER BY id')).toEqual([{ id: 'a' }, { id: 'b' }]);
      await db.copyFrom('copy_conflict', ['id'], copyText([{ id: 'c' }], ['id']));
      expect(await db.query('SELECT count(*)::int AS n FROM copy_conflict')).toEqual([{ n: 3 }]);
    });

    test('a value the column cannot take fails the COPY with its SQLSTATE', async () => {
      const db = await backend.create();
      await db.exec('CREATE TABLE copy_typed (n integer)');
      await expect(db.copyFrom('copy_typed', ['n'], copyText([{ n: 'seven' }], ['n']))).rejects.toMatchObject({ code: '22P02' });
      expect(await db.query('SELECT count(*)::int AS n FROM copy_typed')).toEqual([{ n: 0 }]);
    });

    test('more COPYs and statements at once than the pool has connections: each COPY gets a connection to itself', async () => {
      const db = await backend.create();
      await db.exec('CREATE TABLE copy_crowd (n integer PRIMARY KEY)');
      // The driver sends a statement on a busy connection without waiting (pipelining); one
      // sent behind a COPY used to reach Postgres in the middle of its data and cut the connection.
      const work: Promise<unknown>[] = [];
      for (let batch = 0; batch < 24; batch++) {
        const rows = Array.from({ length: 50 }, (_, i) => ({ n: batch * 50 + i }));
        work.push(db.copyFrom('copy_crowd', ['n'], copyText(rows, ['n'])));
        work.push(db.query('SELECT count(*) FROM copy_crowd'));
      }
      const outcomes = await Promise.allSettled(work);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason))).toEqual([]);
      expect(await db.query('SELECT count(*)::int AS n FROM copy_crowd')).toEqual([{ n: 24 * 50 }]);
    });

    test('table and column names must be plain identifiers', async () => {
      const db = await backend.create();
      await expect(db.copyFrom('clicks; DROP TABLE clicks', ['id'], '')).rejects.toThrow('not a safe SQL identifier');
      await expect(db.copyFrom('clicks', ['id) FROM PROGRAM (id'], '')).rejects.toThrow('not a safe SQL identifier');
    });
  });
}
