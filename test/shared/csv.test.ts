import { describe, expect, test } from 'bun:test';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { csvField, csvRecords, neutraliseFormula, pagedCsv, type CsvCell } from '../../src/shared/csv';
import { parseCsvStrictly } from '../support/csv';
import { tempDir } from '../support/temp-dir';

/** The documented rule (docs/security.md, "CSV exports"), written out independently of the code. */
const expectedText = (cell: CsvCell) => (cell === null ? '' : typeof cell !== 'string' ? String(cell) : /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);

const awkward = fc.constantFrom('"', '""', ',', '\r', '\n', '\r\n', '\n\r', '\t', '=', '+', '-', '@', "'", ' ', 'é', '日本', '😀', '\u2028', '\uFEFF');
const text = fc.string({ unit: fc.oneof(awkward, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength: 12 });
const cell: fc.Arbitrary<CsvCell> = fc.oneof(
  { weight: 6, arbitrary: text },
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const table = fc.integer({ min: 1, max: 6 }).chain((width) => fc.array(fc.array(cell, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 8 }));

describe('csvRecords', () => {
  test('any table survives a strict parse: every row as wide as the table, every value back, text never starting a formula', () => {
    fc.assert(
      fc.property(table, (records) => {
        const parsed = parseCsvStrictly(csvRecords(records));
        expect(parsed).toEqual(records.map((record) => record.map(expectedText)));
        const texts = records.flatMap((record, i) => record.flatMap((value, j) => (typeof value === 'string' ? [parsed[i]![j]!] : [])));
        for (const value of texts) expect(value).not.toMatch(/^[=+\-@\t\r]/);
      }),
      { numRuns: 500 },
    );
  });

  test('quotes exactly the fields holding a quote, a comma, a CR or a LF, and ends each record with CRLF', () => {
    expect(csvRecords([['plain', 'a"b', 'a,b', 'a\rb', 'line1\nline2', 'a\r\nb', ' spaced ', 'a\tb']])).toBe(
      'plain,"a""b","a,b","a\rb","line1\nline2","a\r\nb", spaced ,a\tb\r\n',
    );
    expect(csvRecords([['id', 'n'], [null, 0], [true, -1.5]])).toBe('id,n\r\n,0\r\ntrue,-1.5\r\n');
  });

  test('a record of one empty field is written "", not as a blank line', () => {
    expect(csvRecords([['x'], [''], [null]])).toBe('x\r\n""\r\n""\r\n');
    expect(csvRecords([['', '']])).toBe(',\r\n');
  });

  test("DuckDB's strict reader reads every record whole", async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const path = join(tempDir('csv'), 'awkward.csv');
    const rows = [['line1\nline2', 'a\rb'], ['=HYPERLINK("http://evil.test","x")', 'a,"b"'], ['x\r\ny', '😀']];
    writeFileSync(path, csvRecords([['a', 'b'], ...rows]));
    const read = await connection.runAndReadAll(
      `SELECT a, b FROM read_csv(?, header = true, auto_detect = false, columns = {'a': 'VARCHAR', 'b': 'VARCHAR'}, strict_mode = true, quote = '"', escape = '"')`,
      [path],
    );
    expect(read.getRows()).toEqual(rows.map((row) => row.map(expectedText)));
    connection.closeSync();
    instance.closeSync();
  });
});

describe('csvField', () => {
  test('neutralises text a spreadsheet would run, and nothing else', () => {
    for (const value of ['=1+1', '+1', '-2', '@SUM(A1)', '\tx']) expect(csvField(value)).toBe(`'${value}`);
    expect(csvField('\rx')).toBe(`"'\rx"`);
    expect(csvField('=HYPERLINK("http://evil.test","x")')).toBe(`"'=HYPERLINK(""http://evil.test"",""x"")"`);
    for (const value of ['plain', 'a=b', '', '1-2', "'=already"]) expect(csvField(value)).toBe(value);
    expect([csvField(-2), csvField(false), csvField(null)]).toEqual(['-2', 'false', '']);
    expect(neutraliseFormula('-shoes')).toBe("'-shoes");
  });
});

describe('pagedCsv', () => {
  const pagesOf = (rows: number[]) => async (after: number | null) => rows.filter((row) => row > (after ?? 0)).slice(0, 2);

  test('the header, then every page in order, reading after the last row of each full page', async () => {
    const afters: (number | null)[] = [];
    const read = pagesOf([1, 2, 3, 4, 5]);
    const stream = await pagedCsv({ header: ['n'], read: (after: number | null) => (afters.push(after), read(after)), records: (page) => page.map((n) => [n]), pageRows: 2 });
    expect(await new Response(stream).text()).toBe('n\r\n1\r\n2\r\n3\r\n4\r\n5\r\n');
    expect(afters).toEqual([null, 2, 4]);
  });

  test('a first page that cannot be read fails the call, before any byte is written', async () => {
    const failing = pagedCsv({ header: ['n'], read: async () => Promise.reject(new Error('mirror down')), records: () => [], pageRows: 2 });
    await expect(failing).rejects.toThrow('mirror down');
  });
});
