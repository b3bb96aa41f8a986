/** One row as both adapters return it: column name to parsed value. */
export type Row = Record<string, unknown>;

export interface QueryOptions {
  /**
   * Plan on every call, for tables that start empty and grow fast: a plan cached while the table
   * was tiny is a sequential scan, kept until the next analyze. On Postgres such statements run
   * on connections set to `plan_cache_mode = force_custom_plan`.
   */
  planEachCall?: boolean;
}

/** What a statement runs on: the pool, or one transaction. SQL uses $1, $2 ... parameters. */
export interface Queryable {
  query<T = Row>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations only). */
  exec(script: string): Promise<void>;
}

/**
 * The storage seam. The same SQL runs on real Postgres (porsager) and on PGlite.
 * Timestamps come back as Date, bigint and numeric as number, json/jsonb as parsed values.
 */
export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Multi-row INSERT in chunks; `suffix` is appended verbatim (e.g. an ON CONFLICT clause). */
  bulkInsert(table: string, columns: readonly string[], rows: readonly (readonly unknown[])[], suffix?: string): Promise<number>;
  /**
   * `COPY table (columns) FROM STDIN` of rows in the COPY text format (copyText builds it): one
   * statement, all rows or none. It has no conflict clause; a caller that may meet rows already
   * stored catches the unique violation (23505) and writes them another way.
   */
  copyFrom(table: string, columns: readonly string[], text: string): Promise<void>;
  /**
   * Resolves once every commit made before the call would survive a power cut. On Postgres at
   * once: a commit returns once its WAL is flushed. The embedded store commits copyFrom's rows
   * without waiting for the disk, and flushes its WAL here.
   */
  syncCommits(): Promise<void>;
  /** Subscribes to a NOTIFY channel; resolves to the unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Takes a session-level advisory lock without waiting: null when another holder has it. Held
   * until release(), or until the holding connection ends (a crashed node frees it).
   */
  tryAdvisoryLock(key: number): Promise<AdvisoryLock | null>;
  /**
   * The embedded store on a thread of its own only (EMBEDDED_STORE_THREAD): a new channel to it,
   * for another thread to open with openPgliteOverPort (the click writer's, the mirror's).
   */
  storeChannel?(): MessagePort;
  close(): Promise<void>;
}

export interface AdvisoryLock {
  release(): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Table and column names come from code, never from input; this guards that promise. */
export function assertIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a safe SQL identifier: ${name}`);
  return name;
}

/** The COPY statement of copyFrom; shared by both adapters. */
export function copyStatement(table: string, columns: readonly string[], source: 'STDIN' | "'/dev/blob'"): string {
  assertIdentifier(table);
  columns.forEach(assertIdentifier);
  return `COPY ${table} (${columns.join(', ')}) FROM ${source}`;
}

/** Postgres allows 65535 bind parameters per statement. */
const MAX_PARAMS = 60000;

/** Builds the multi-row INSERT statements for bulkInsert; shared by both adapters. */
export function bulkInsertStatements(
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  suffix = '',
): { text: string; params: unknown[] }[] {
  assertIdentifier(table);
  columns.forEach(assertIdentifier);
  const perChunk = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const statements: { text: string; params: unknown[] }[] = [];
  for (let start = 0; start < rows.length; start += perChunk) {
    const chunk = rows.slice(start, start + perChunk);
    const params: unknown[] = [];
    const tuples = chunk.map((row) => {
      if (row.length !== columns.length) throw new Error(`bulkInsert into ${table}: row has ${row.length} values for ${columns.length} columns`);
      const slots = row.map((value) => {
        params.push(value);
        return `$${params.length}`;
      });
      return `(${slots.join(',')})`;
    });
    statements.push({ text: `INSERT INTO ${table} (${columns.join(',')}) VALUES ${tuples.join(',')} ${suffix}`, params });
  }
  return statements;
}
