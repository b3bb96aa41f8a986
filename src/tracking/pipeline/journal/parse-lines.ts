const decoder = new TextDecoder();

/**
 * The records of `count` JSON lines (UTF-8, as readLines gives them). JSON text never holds a raw
 * newline, so the lines joined by commas are one JSON array: one parse for the whole batch. Only
 * when that fails (a damaged line) are they parsed one by one, skipping what cannot be read.
 */
export function parseLines<T>(bytes: Uint8Array, count: number): T[] {
  const text = decoder.decode(bytes);
  try {
    const records = JSON.parse(`[${text.replaceAll('\n', ',')}]`) as T[];
    if (records.length === count) return records;
  } catch {}
  const records: T[] = [];
  for (const line of text.split('\n')) {
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      console.error(`journal: skipping an unreadable line: ${line.slice(0, 200)}`);
    }
  }
  return records;
}
