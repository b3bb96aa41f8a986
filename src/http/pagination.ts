import { createHash } from 'node:crypto';
import { t, type TSchema } from 'elysia';
import { documented } from './documented';
import { fieldError, HttpError } from './errors';

/**
 * Cursor pagination for every list of the API (docs/management-api.md, "Lists and pages"): a page
 * is `{data, next_cursor}`, and `next_cursor` passed back as `cursor` gives the rows after the
 * last one shown. Pages are keyset pages (the rows after the last row's sort key, never an
 * OFFSET), so rows inserted meanwhile neither repeat nor push the old ones onto another page.
 *
 * A cursor is opaque to clients: base64url of a JSON array [version, list, organization tag,
 * ...key]. The tag binds it to the organization it was made for, so another organization's
 * cursor is refused rather than read; the rows are scoped by organization in SQL all the same.
 */

const VERSION = 1;
export const MAX_CURSOR_LENGTH = 512;
const CURSOR_ERROR = 'is not a cursor of this list: pass next_cursor from the previous page unchanged';

/** The `cursor` query parameter, beside a list's `limit`. */
export const CursorQuery = t.Optional(t.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, error: CURSOR_ERROR }));

/** A page's answer schema, for the OpenAPI document. */
export const PageOf = <T extends TSchema>(item: T, order?: string) =>
  t.Object({
    data: t.Array(item, order ? { description: order } : {}),
    next_cursor: t.Union([t.String(), t.Null()], { description: 'pass as `cursor` for the next page; null on the last page' }),
  });

/** `detail.responses` of a list whose items have no model of their own: the page's shape. */
export const pageAnswer = (description: string) => documented({ 200: [description, PageOf(t.Object({}, { additionalProperties: true }))] });

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** What a repository is asked for: at most `limit` rows after the key `after` (null: from the start). */
export interface PageRequest {
  limit: number;
  after: readonly string[] | null;
}

/** A list's identity in its cursors: a cursor of one list is refused by another. */
export interface CursorScope {
  list: string;
  orgId: string;
}

function orgTag(orgId: string): string {
  return createHash('sha256').update(`cursor:${orgId}`).digest('base64url').slice(0, 16);
}

export function encodeCursor(scope: CursorScope, key: readonly string[]): string {
  return Buffer.from(JSON.stringify([VERSION, scope.list, orgTag(scope.orgId), ...key]), 'utf8').toString('base64url');
}

/** The key a cursor carries, or a 400 on `cursor` for anything this list did not hand to this organization. */
export function decodeCursor(scope: CursorScope, cursor: string, keyLength: number): string[] {
  const refuse = () => fieldError('cursor', CURSOR_ERROR);
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 + keyLength) throw refuse();
  const [version, list, tag, ...key] = parsed as unknown[];
  if (version !== VERSION || list !== scope.list || tag !== orgTag(scope.orgId)) throw refuse();
  if (!key.every((part): part is string => typeof part === 'string' && part.length > 0 && part.length <= 256)) throw refuse();
  return key;
}

/** Whether an error is the refusal of a cursor (the web app answers it with a page of its own). */
export function isCursorRefusal(error: unknown): boolean {
  if (!(error instanceof HttpError) || error.status !== 400) return false;
  const body = error.body.error as { fieldErrors?: Record<string, unknown> } | undefined;
  return typeof body === 'object' && body !== null && body.fieldErrors !== undefined && 'cursor' in body.fieldErrors;
}

/** The SQL types a values keyset's column is cast to, each with the text a cursor may carry for it. */
const KEY_TEXT = {
  // exactTimestamp's form: UTC to the microsecond.
  timestamptz: (text: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(text) && sameDay(text.slice(0, 10)) && new Date(`${text.slice(0, 23)}Z`).toISOString().slice(0, 23) === text.slice(0, 23),
  date: (text: string) => /^\d{4}-\d\d-\d\d$/.test(text) && sameDay(text),
  text: () => true,
} as const;
const sameDay = (day: string) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;

/**
 * How one list is ordered and where its keyset condition comes from.
 * - `anchor`: the cursor carries the last row's id and the condition reads that row's sort key
 *   back in SQL, so a timestamp keeps the microseconds a JavaScript Date would drop. Every
 *   column goes one direction.
 * - `values`: the cursor carries the sort key itself, each column with its own direction and
 *   cast (a timestamp as exactTimestamp writes it).
 */
export type Keyset =
  | { kind: 'anchor'; list: string; table: string; columns: readonly string[]; direction: 'asc' | 'desc'; id: string; org: string }
  | { kind: 'values'; list: string; columns: readonly { column: string; cast: keyof typeof KEY_TEXT; direction: 'asc' | 'desc' }[] };

const keyLength = (keyset: Keyset) => (keyset.kind === 'anchor' ? 1 : keyset.columns.length);

function pageRequest(keyset: Keyset, orgId: string, query: { limit?: number; cursor?: string }, defaultLimit: number): PageRequest {
  if (query.cursor === undefined) return { limit: query.limit ?? defaultLimit, after: null };
  const after = decodeCursor({ list: keyset.list, orgId }, query.cursor, keyLength(keyset));
  // A cursor made by hand with a key its column cannot hold is refused here, not by the cast in SQL.
  if (keyset.kind === 'values' && !keyset.columns.every((column, i) => KEY_TEXT[column.cast](after[i]!))) throw fieldError('cursor', CURSOR_ERROR);
  return { limit: query.limit ?? defaultLimit, after };
}

/**
 * The SQL condition "after the cursor's row" with its parameters numbered from `firstParam`
 * (`TRUE` and none on the first page). `alias` prefixes the list's columns ("l." for `links l`).
 * For an anchor, `orgParam` is the placeholder already holding the organization id, so another
 * organization's row can never be the anchor.
 */
export function keysetCondition(keyset: Keyset, after: readonly string[] | null, firstParam: number, orgParam = '$1', alias = ''): { sql: string; params: string[] } {
  if (!after) return { sql: 'TRUE', params: [] };
  if (keyset.kind === 'anchor') {
    const columns = keyset.columns.map((column) => `${alias}${column}`).join(', ');
    const op = keyset.direction === 'desc' ? '<' : '>';
    const anchor = `SELECT ${keyset.columns.map((column) => `a.${column}`).join(', ')} FROM ${keyset.table} a WHERE a.${keyset.org} = ${orgParam} AND a.${keyset.id} = $${firstParam}`;
    return { sql: `(${columns}) ${op} (${anchor})`, params: [after[0]!] };
  }
  // Mixed directions have no row comparison: (a < x) OR (a = x AND b > y) OR ...
  // Cast from text on the server: the postgres driver would turn a timestamptz parameter into a
  // JavaScript Date and drop its microseconds.
  const value = (i: number) => `($${firstParam + i}::text)::${keyset.columns[i]!.cast}`;
  const branches = keyset.columns.map((column, i) => {
    const equal = keyset.columns.slice(0, i).map((earlier, j) => `${alias}${earlier.column} = ${value(j)}`);
    const op = column.direction === 'desc' ? '<' : '>';
    return `(${[...equal, `${alias}${column.column} ${op} ${value(i)}`].join(' AND ')})`;
  });
  return { sql: `(${branches.join(' OR ')})`, params: [...after] };
}

/**
 * A timestamp column as UTC text to the microsecond, for a values keyset's cursor: a JavaScript
 * Date keeps milliseconds, and a cursor rounded to them would skip rows within that millisecond.
 */
export const exactTimestamp = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The ORDER BY of a keyset, for the statement that pages with it. */
export function keysetOrder(keyset: Keyset, alias = ''): string {
  if (keyset.kind === 'anchor') return keyset.columns.map((column) => `${alias}${column} ${keyset.direction.toUpperCase()}`).join(', ');
  return keyset.columns.map((column) => `${alias}${column.column} ${column.direction.toUpperCase()}`).join(', ');
}

export interface PageReader<Row, Item> {
  keyset: Keyset;
  orgId: string;
  /** The route's `limit` and `cursor`. */
  query: { limit?: number; cursor?: string };
  defaultLimit: number;
  /** The repository's statement: at most `limit` rows after `after`, in the keyset's order. */
  fetch: (page: PageRequest) => Promise<readonly Row[]>;
  /** The cursor's key of a row: its id for an anchor keyset, its sort key for a values keyset. */
  keyOf: (row: Row) => readonly string[];
  view: (row: Row) => Item;
}

/**
 * One page of a list. The repository is asked for one row more than the page holds: that row
 * only says another page exists, and the cursor points after the last row shown.
 */
export async function readPage<Row, Item>(reader: PageReader<Row, Item>): Promise<Page<Item>> {
  const page = pageRequest(reader.keyset, reader.orgId, reader.query, reader.defaultLimit);
  const rows = await reader.fetch({ limit: page.limit + 1, after: page.after });
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  const more = rows.length > page.limit && last !== undefined;
  return { data: shown.map(reader.view), next_cursor: more ? encodeCursor({ list: reader.keyset.list, orgId: reader.orgId }, reader.keyOf(last)) : null };
}
