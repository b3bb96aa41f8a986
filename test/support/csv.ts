import { parse } from 'csv-parse/sync';

/**
 * Reads a CSV the service wrote as a strict reader (DuckDB's) would: a bare CR or LF outside
 * quotes ends a record, a stray quote or a row of another width throws. Also throws when a
 * record does not end with CRLF, the one delimiter the service writes.
 */
export function parseCsvStrictly(text: string): string[][] {
  const outsideQuotes = text.replace(/"(?:[^"]|"")*"/g, '');
  if (text !== '' && !text.endsWith('\r\n')) throw new Error('the CSV does not end with CRLF');
  if (/\r(?!\n)|(?<!\r)\n/.test(outsideQuotes)) throw new Error('a record of the CSV ends with a bare CR or LF');
  return parse(text, {
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_quotes: false,
    relax_column_count: false,
    skip_empty_lines: false,
    bom: false,
  }) as string[][];
}

/** A CSV answer read strictly (parseCsvStrictly), as one object per row keyed by the header's names. */
export async function csvRowsOf(res: Response): Promise<Record<string, string>[]> {
  const [header, ...rows] = parseCsvStrictly(await res.text());
  if (header === undefined) throw new Error('the CSV has no header');
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]!])));
}
