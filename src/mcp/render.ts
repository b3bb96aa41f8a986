/** The text renderings of tool results: Markdown tables a person or a model reads at a glance. */

type Cell = string | number | boolean | null | undefined;

/** A Markdown table; null cells show as `-`, pipes in values are escaped. */
export function table<Row>(rows: readonly Row[], columns: readonly { title: string; value: (row: Row) => Cell }[]): string {
  if (rows.length === 0) return '(no rows)';
  const cell = (value: Cell) => (value === null || value === undefined || value === '' ? '-' : String(value).replaceAll('|', '\\|').replaceAll('\n', ' '));
  const head = `| ${columns.map((column) => column.title).join(' | ')} |`;
  const rule = `|${columns.map(() => '---|').join('')}`;
  return [head, rule, ...rows.map((row) => `| ${columns.map((column) => cell(column.value(row))).join(' | ')} |`)].join('\n');
}

/** A value as indented JSON under a title, for results that are not rows (a link, a route decision). */
export function block(title: string, value: unknown): string {
  return `${title}\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;
}

/** An amount or a ratio for reading: at most 4 decimals, no trailing zeros; null as `-`. */
export function amount(value: number | null): string | null {
  return value === null ? null : String(Math.round(value * 1e4) / 1e4);
}
