/**
 * The one CSV writer of every export (docs/security.md, "CSV exports"): RFC 4180 with CRLF
 * record ends, a field holding `"`, `,`, CR or LF quoted with its quotes doubled, and text a
 * spreadsheet would run as a formula neutralised.
 */

/** A cell: text, a number, a boolean (`true`/`false`) or nothing (an empty field). */
export type CsvCell = string | number | boolean | null;

/** What a spreadsheet reads as the start of a formula; exported text is written by outsiders (ad URLs, clicks). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** Text a spreadsheet would run as a formula gets a leading apostrophe; other text is left as it is. */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export function csvField(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell !== 'string') return String(cell);
  const text = neutraliseFormula(cell);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Records, each ended by CRLF. A lone empty field is written `""`, so its record is not a blank line. */
export function csvRecords(records: readonly (readonly CsvCell[])[]): string {
  let text = '';
  for (const record of records) {
    const line = record.map(csvField).join(',');
    text += `${line === '' && record.length === 1 ? '""' : line}\r\n`;
  }
  return text;
}

/**
 * A CSV streamed page by page: the header, then each page's records as it is read, the next page
 * after the row that ended this one. The first page is read before the answer starts, so a store
 * that cannot answer gives an error status rather than a cut file.
 */
export async function pagedCsv<R>(input: {
  header: readonly string[];
  read: (after: R | null) => Promise<R[]>;
  records: (page: R[]) => CsvCell[][] | Promise<CsvCell[][]>;
  pageRows: number;
}): Promise<ReadableStream<Uint8Array>> {
  let page = await input.read(null);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvRecords([input.header])));
    },
    async pull(controller) {
      if (page.length === 0) return controller.close();
      controller.enqueue(encoder.encode(csvRecords(await input.records(page))));
      page = page.length < input.pageRows ? [] : await input.read(page[page.length - 1]!);
    },
  });
}
