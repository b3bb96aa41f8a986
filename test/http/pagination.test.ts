import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { decodeCursor, encodeCursor, keysetCondition, keysetOrder, type Keyset } from '../../src/http/pagination';
import { HttpError } from '../../src/http/errors';

const scope = { list: 'links', orgId: '01HORGAAAAAAAAAAAAAAAAAAAA' };

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return { status: (error as HttpError).status, body: (error as HttpError).body };
  }
  throw new Error('the cursor was accepted');
}

const CURSOR_400 = { status: 400, body: { error: { formErrors: [], fieldErrors: { cursor: [expect.stringContaining('is not a cursor of this list')] } } } };

describe('cursors', () => {
  test('a cursor decodes to the key it was made with, for its list and organization', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3 }), (key) => {
        expect(decodeCursor(scope, encodeCursor(scope, key), key.length)).toEqual(key);
      }),
    );
  });

  test('any text that is not a cursor of this list is a 400 on `cursor`, never an exception of another kind', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (text) => {
        expect(refusal(() => decodeCursor(scope, text, 1))).toEqual(CURSOR_400);
      }),
    );
    // Well-formed base64url of JSON that is not a cursor.
    for (const json of ['[]', '{}', '"x"', '[1,"links"]', '[2,"links","tag","id"]', '[1,"links",1,"id"]', `[1,"links","x","id"]`]) {
      expect(refusal(() => decodeCursor(scope, Buffer.from(json).toString('base64url'), 1))).toEqual(CURSOR_400);
    }
  });

  test("another organization's cursor, another list's, or one with a key of the wrong length is refused", () => {
    const cursor = encodeCursor(scope, ['01HLINK']);
    expect(refusal(() => decodeCursor({ ...scope, orgId: '01HORGBBBBBBBBBBBBBBBBBBBB' }, cursor, 1))).toEqual(CURSOR_400);
    expect(refusal(() => decodeCursor({ ...scope, list: 'campaigns' }, cursor, 1))).toEqual(CURSOR_400);
    expect(refusal(() => decodeCursor(scope, cursor, 2))).toEqual(CURSOR_400);
  });

  test('a cursor is opaque: it does not carry the organization id', () => {
    const text = Buffer.from(encodeCursor(scope, ['01HLINK']), 'base64url').toString('utf8');
    expect(text).not.toContain(scope.orgId);
  });
});

describe('keyset conditions', () => {
  const anchor: Keyset = { kind: 'anchor', list: 'links', table: 'links', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };
  const values: Keyset = {
    kind: 'values',
    list: 'fx-rates',
    columns: [
      { column: 'day', cast: 'date', direction: 'desc' },
      { column: 'currency', cast: 'text', direction: 'asc' },
    ],
  };

  test('the first page has no condition', () => {
    expect(keysetCondition(anchor, null, 3)).toEqual({ sql: 'TRUE', params: [] });
  });

  test("an anchor reads the row's key back within the organization; its id is a parameter", () => {
    expect(keysetCondition(anchor, ['01HLINK'], 3)).toEqual({
      sql: '(created_at, id) < (SELECT a.created_at, a.id FROM links a WHERE a.org_id = $1 AND a.id = $3)',
      params: ['01HLINK'],
    });
    expect(keysetOrder(anchor)).toBe('created_at DESC, id DESC');
  });

  test('values with mixed directions expand into branches; every value is a parameter', () => {
    expect(keysetCondition(values, ['2026-09-01', 'EUR'], 6)).toEqual({
      sql: '((day < ($6::text)::date) OR (day = ($6::text)::date AND currency > ($7::text)::text))',
      params: ['2026-09-01', 'EUR'],
    });
    expect(keysetOrder(values, 'r.')).toBe('r.day DESC, r.currency ASC');
  });
});
