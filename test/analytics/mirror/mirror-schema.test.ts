import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { decimalCast, describeTable, mapColumn } from '../../../src/analytics/mirror/mirror-schema';
import { newId } from '../../../src/shared/ids';
import { backends } from '../../support/db';
import { planNodes, readsTable } from '../../support/plans';
import { countFor, newOrg, tempDuckFile, testMirror } from './mirror.helpers';

// Database boots and DuckDB files on a shared, loaded machine (hooks too); no assertion depends on time.
setDefaultTimeout(30_000);

const column = (data_type: string, extra: Partial<Parameters<typeof mapColumn>[0]> = {}) =>
  mapColumn({ column_name: 'v', data_type, numeric_precision: null, numeric_scale: null, column_default: null, ...extra });

describe('Postgres to DuckDB type mapping', () => {
  test('maps each Postgres type to its DuckDB type', () => {
    const cases: [string, string][] = [
      ['smallint', 'SMALLINT'],
      ['integer', 'INTEGER'],
      ['bigint', 'BIGINT'],
      ['real', 'FLOAT'],
      ['double precision', 'DOUBLE'],
      ['numeric', 'DECIMAL(38,10)'],
      ['boolean', 'BOOLEAN'],
      ['timestamp with time zone', 'TIMESTAMPTZ'],
      ['timestamp without time zone', 'TIMESTAMP'],
      ['date', 'DATE'],
      ['uuid', 'UUID'],
      ['jsonb', 'JSON'],
      ['json', 'JSON'],
      ['bytea', 'BLOB'],
      ['text', 'VARCHAR'],
      ['ARRAY', 'VARCHAR'],
      ['interval', 'VARCHAR'],
      ['inet', 'VARCHAR'],
    ];
    for (const [pg, duck] of cases) expect(column(pg).duckType).toBe(duck);
  });

  test('keeps a declared numeric precision that DuckDB can hold, and never fails the copy on numbers', () => {
    expect(column('numeric', { numeric_precision: 12, numeric_scale: 2 }).duckType).toBe('DECIMAL(12,2)');
    expect(column('numeric', { numeric_precision: 60, numeric_scale: 2 }).duckType).toBe('DECIMAL(38,10)');
    expect(column('numeric').duckCast).toContain('TRY_CAST(');
    expect(column('numeric').duckCast).not.toMatch(/(^|[^Y_])CAST\("v" AS DECIMAL\(38/);
  });

  test('a wide DECIMAL parsed narrow first gives exactly what the wide parse gives, for any number text', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const duck = await instance.connect();
    const digits = (max: number) => fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: max }).map((d) => d.join(''));
    // Postgres renders numeric as plain digits: an optional sign, an integer part, an optional fraction.
    const numberText = fc
      .tuple(fc.boolean(), digits(32), digits(16), fc.boolean())
      .map(([negative, whole, fraction, point]) => `${negative ? '-' : ''}${whole || '0'}${point && fraction ? `.${fraction}` : ''}`);
    const edges = ['0.1234567890123456789012345', '99999999.9999999999', '99999999.99999999995', '-99999999.99999999995', '100000000.25', '0.00000000005', '-0.00000000005', '1e30', 'NaN', 'x'];
    try {
      // The unconstrained numeric's type, a declared wide one, and wide ones whose scale a
      // 64-bit DECIMAL can barely or cannot hold.
      const types: [number, number][] = [[38, 10], [30, 2], [20, 18], [38, 30]];
      const columns = types.map(([width, scale], i) => `(${decimalCast('v', width, scale)})::VARCHAR AS fast${i}, TRY_CAST(v AS DECIMAL(${width},${scale}))::VARCHAR AS wide${i}`);
      const check = async (text: string) => {
        const result = await duck.runAndReadAll(`SELECT ${columns.join(', ')} FROM (SELECT $1::VARCHAR AS v)`, [text]);
        const [row] = result.getRowObjectsJS();
        for (const [i, [width, scale]] of types.entries()) {
          expect({ text, width, scale, value: row![`fast${i}`] }).toEqual({ text, width, scale, value: row![`wide${i}`] });
        }
      };
      for (const text of edges) await check(text);
      await fc.assert(fc.asyncProperty(numberText, check), { numRuns: 300 });
      // A declared width DuckDB holds in 64 bits is parsed once, as before.
      expect(decimalCast('"v"', 12, 2)).toBe('TRY_CAST("v" AS DECIMAL(12,2))');
    } finally {
      duck.closeSync();
      instance.closeSync();
    }
  });

  test('renders dates and timestamps as ISO 8601 whatever the DateStyle', () => {
    expect(column('timestamp with time zone').pgText).toBe(`to_json("v")#>>'{}'`);
    expect(column('date').pgText).toBe(`to_json("v")#>>'{}'`);
  });

  test('refuses a column name that is not a plain identifier', () => {
    expect(() => mapColumn({ column_name: 'v"; DROP TABLE x; --', data_type: 'text', numeric_precision: null, numeric_scale: null, column_default: null })).toThrow(
      'not a safe SQL identifier',
    );
  });
});

for (const backend of backends()) {
  describe(`analytics mirror schema on ${backend.name}`, async () => {
    const db = await backend.create();

    test('a batch reads only its own rows after the cursor, however many wait behind it', async () => {
      // A backlog (a burst the mirror gave way to) must cost each batch its own rows, not every
      // row after the cursor: that made catching up cost the square of the backlog. No ANALYZE:
      // PGlite runs no autovacuum, and on Postgres a burst outruns it.
      const org = newOrg();
      await db.query(
        `INSERT INTO clicks (id, org_id, created_at, next_hop_url, user_agent, ip_day_hash, household_hash, params)
         SELECT $1 || lpad(i::text, 6, '0'), $1, now(), 'https://shop.example.com/p?a=1&svc_click_id=' || i,
                'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
                md5(i::text) || md5(i::text), md5(i::text) || md5(i::text), '{"utm_source":"google"}'::jsonb
           FROM generate_series(1, 20000) AS i`,
        [org],
      );
      const table = await describeTable(db, 'clicks');
      const rowsReadFromClicks = (await planNodes(db, table.selectBatch, ['0', '0', 500], { analyze: true }))
        .filter((node) => readsTable(node, 'clicks'))
        .map((node) => Number(node['Actual Rows']) * Number(node['Actual Loops']));
      expect(rowsReadFromClicks.length).toBeGreaterThan(0);
      expect(Math.max(...rowsReadFromClicks)).toBeLessThanOrEqual(500);
      expect(await db.query(table.selectBatch, ['0', '0', 500])).toHaveLength(500);
    });

    test('every mapped type arrives with its value intact, and NULLs stay NULL', async () => {
      await db.exec(`CREATE TABLE mirror_types_probe (
        id text PRIMARY KEY, org_id text, i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
        money numeric(12,2), amount numeric, flag boolean, at timestamptz, local_at timestamp, day date,
        uid uuid, doc jsonb, raw json, bytes bytea, tags text[], span interval, addr inet,
        _txid xid8 NOT NULL DEFAULT pg_current_xact_id(), _seq bigserial
      )`);
      await db.query(
        `INSERT INTO mirror_types_probe (id, i2, i4, i8, f4, f8, money, amount, flag, at, local_at, day, uid, doc, raw, bytes, tags, span, addr)
         VALUES ('full', 7, -42, 9007199254740993, 1.5, 2.25, 1234.56, 0.000000001, false, '2024-02-29 23:59:59.999999+00',
                 '2024-01-02 03:04:05.678901', '2024-02-29', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"k": [1, "x"]}',
                 '{"raw": true}', '\\xdeadbeef', '{a,b}', '1 day 02:00:00', '10.1.2.3')`,
      );
      await db.query(`INSERT INTO mirror_types_probe (id) VALUES ('empty')`);
      await db.query(`INSERT INTO mirror_types_probe (id, amount, f8) VALUES ('extreme', 1e30, 'NaN')`);
      const mirror = await testMirror({ db, tables: ['mirror_types_probe'] });
      expect(await mirror.catchUp()).toBe(3);
      // A number DECIMAL cannot hold arrives as NULL instead of stopping the mirror on this row.
      expect(await mirror.query('SELECT amount, isnan(f8) AS nan FROM mirror_types_probe WHERE id = $1', ['extreme'])).toEqual([
        { amount: null, nan: true },
      ]);
      const [full] = await mirror.query<Record<string, unknown>>(
        `SELECT i2, i4, i8::VARCHAR AS i8, f4, f8, money::VARCHAR AS money, amount::VARCHAR AS amount, flag,
                epoch_us("at") AS at_us, local_at::VARCHAR AS local_at, day::VARCHAR AS day, uid::VARCHAR AS uid,
                json_extract_string(doc, '$.k[1]') AS doc_k, raw::VARCHAR AS raw, hex(bytes) AS bytes, tags, span, addr
           FROM mirror_types_probe WHERE id = 'full'`,
      );
      expect(full).toEqual({
        i2: 7,
        i4: -42,
        i8: '9007199254740993',
        f4: 1.5,
        f8: 2.25,
        money: '1234.56',
        amount: '0.0000000010',
        flag: false,
        at_us: Date.UTC(2024, 1, 29, 23, 59, 59, 999) * 1000 + 999,
        local_at: '2024-01-02 03:04:05.678901',
        day: '2024-02-29',
        uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        doc_k: 'x',
        raw: '{"raw": true}',
        bytes: 'DEADBEEF',
        tags: '{a,b}',
        span: '1 day 02:00:00',
        addr: '10.1.2.3',
      });
      const [empty] = await mirror.query<Record<string, unknown>>(
        'SELECT i2, amount, flag, "at", day, doc, bytes FROM mirror_types_probe WHERE id = $1',
        ['empty'],
      );
      expect(Object.values(empty!).every((value) => value === null)).toBe(true);
    });

    test('a column a migration adds later is added to DuckDB at start; with a DEFAULT the table is re-copied once', async () => {
      const org = newOrg();
      const path = tempDuckFile();
      const insertEvent = () =>
        db.query(
          `INSERT INTO events (id, org_id, app_id, device_id_hash, name, occurred_at) VALUES ($1, $2, 'app', 'device', 'open', now())`,
          [newId(), org],
        );
      await insertEvent();
      await insertEvent();
      const first = await testMirror({ db, path, tables: ['events'] });
      await first.catchUp();
      await first.stop();

      await db.exec("ALTER TABLE events ADD COLUMN channel text NOT NULL DEFAULT 'organic'");
      const second = await testMirror({ db, path, tables: ['events'] });
      await second.catchUp();
      const rows = await second.query<{ channel: string }>('SELECT channel FROM events WHERE org_id = $1', [org]);
      expect(rows).toEqual([{ channel: 'organic' }, { channel: 'organic' }]);
      expect(await countFor(second, 'events', org)).toEqual({ rows: 2, ids: 2 });
      await second.stop();

      // Without a DEFAULT, Postgres holds NULL for old rows too: nothing needs copying again.
      await db.exec('ALTER TABLE events ADD COLUMN note text');
      const third = await testMirror({ db, path, tables: ['events'] });
      expect(await third.catchUp()).toBe(0);
      expect(await third.query('SELECT note FROM events WHERE org_id = $1 LIMIT 1', [org])).toEqual([{ note: null }]);
      await insertEvent();
      expect(await third.catchUp()).toBe(1);
      expect(await countFor(third, 'events', org)).toEqual({ rows: 3, ids: 3 });
    });
  });
}
