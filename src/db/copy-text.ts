/**
 * Rows in the text format of `COPY ... FROM STDIN`: one line a row, values in `columns` order
 * separated by tabs, NULL as `\N`, backslash, tab, newline and carriage return escaped. Booleans
 * are t or f, numbers in JavaScript's notation, Dates ISO 8601, objects (jsonb) JSON; undefined is
 * NULL, like a field a JSON recordset leaves out.
 */
export function copyText(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < columns.length; i++) {
      if (i > 0) text += '\t';
      text += copyValue(row[columns[i]!]);
    }
    text += '\n';
  }
  return text;
}

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  switch (typeof value) {
    case 'string':
      return escaped(value);
    case 'boolean':
      return value ? 't' : 'f';
    case 'number':
    case 'bigint':
      return String(value);
    default:
      return escaped(value instanceof Date ? value.toISOString() : JSON.stringify(value));
  }
}

function escaped(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIAL_ALL, (character) => ESCAPES[character]!) : text;
}
