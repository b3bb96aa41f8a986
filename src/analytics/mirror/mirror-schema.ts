import type { DuckDBConnection } from '@duckdb/node-api';
import { assertIdentifier, type Queryable } from '../../db/db';

/**
 * How one Postgres column travels: Postgres renders it as text (`pgText`), the text is appended
 * to a VARCHAR staging table, and DuckDB casts it to `duckType` (`duckCast`). Text in both
 * directions keeps numeric digits and microseconds exact, and is the same on PGlite and Postgres.
 */
export interface MirrorColumn {
  name: string;
  duckType: string;
  /** Whether Postgres fills the column for existing rows when it is added (a DEFAULT). */
  hasDefault: boolean;
  pgText: string;
  duckCast: string;
}

export interface MirrorTable {
  name: string;
  columns: MirrorColumn[];
  /** Params: cursor txid (text), cursor seq (text), batch size. */
  selectBatch: string;
  stageTable: string;
  /** Creates the staging table empty, replacing the last batch's. */
  createStage: string;
  /** Moves the staged batch into the mirrored table; a re-copied id replaces the old row. */
  upsertFromStage: string;
}

/** Bookkeeping columns: they order the copy and are not analytics data. */
const CURSOR_COLUMNS = new Set(['_txid', '_seq']);

export const CURSOR_TABLE = '_mirror_cursors';
/** Names of the cursor columns in a copied batch. */
export const CURSOR_TXID = 'mirror_cursor_txid';
export const CURSOR_SEQ = 'mirror_cursor_seq';

/**
 * The lowest transaction id that may still add rows here, from the statement's own snapshot: no
 * row can later appear below it (docs/analytics-mirror.md, "Why no row is ever skipped"). A
 * scalar subquery, computed once, so the (_txid, _seq) index bounds the scan.
 */
const HORIZON = `SELECT coalesce(
           (SELECT min(x) FROM pg_snapshot_xip(snap) AS x
             WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.backend_xid = x::xid AND a.datname <> current_database())),
           pg_snapshot_xmax(snap))
         FROM pg_current_snapshot() AS snap`;

interface PgColumnRow {
  column_name: string;
  data_type: string;
  numeric_precision: number | null;
  numeric_scale: number | null;
  column_default: string | null;
}

const q = (name: string) => `"${assertIdentifier(name)}"`;

/**
 * DuckDB type and the two conversions for one information_schema column: dates go through to_json
 * (ISO 8601 whatever the DateStyle), an unknown type stays text, and a number out of DECIMAL range
 * (or NaN) arrives as NULL rather than stall the mirror.
 */
export function mapColumn(column: PgColumnRow): MirrorColumn {
  const name = assertIdentifier(column.column_name);
  const quoted = q(name);
  const asText = `${quoted}::text`;
  const asJsonText = `to_json(${quoted})#>>'{}'`;
  const cast = (type: string) => `CAST(${quoted} AS ${type})`;
  const hasDefault = column.column_default !== null;
  const base = { name, hasDefault };
  switch (column.data_type) {
    case 'smallint':
      return { ...base, duckType: 'SMALLINT', pgText: asText, duckCast: cast('SMALLINT') };
    case 'integer':
      return { ...base, duckType: 'INTEGER', pgText: asText, duckCast: cast('INTEGER') };
    case 'bigint':
      return { ...base, duckType: 'BIGINT', pgText: asText, duckCast: cast('BIGINT') };
    case 'real':
      return { ...base, duckType: 'FLOAT', pgText: asText, duckCast: cast('FLOAT') };
    case 'double precision':
      return { ...base, duckType: 'DOUBLE', pgText: asText, duckCast: cast('DOUBLE') };
    case 'numeric': {
      const precision = column.numeric_precision;
      const [width, scale] = precision !== null && precision <= 38 ? [precision, column.numeric_scale ?? 0] : [38, 10];
      return { ...base, duckType: `DECIMAL(${width},${scale})`, pgText: asText, duckCast: decimalCast(quoted, width, scale) };
    }
    case 'boolean':
      return { ...base, duckType: 'BOOLEAN', pgText: asText, duckCast: cast('BOOLEAN') };
    case 'timestamp with time zone':
      return { ...base, duckType: 'TIMESTAMPTZ', pgText: asJsonText, duckCast: cast('TIMESTAMPTZ') };
    case 'timestamp without time zone':
      return { ...base, duckType: 'TIMESTAMP', pgText: asJsonText, duckCast: cast('TIMESTAMP') };
    case 'date':
      return { ...base, duckType: 'DATE', pgText: asJsonText, duckCast: cast('DATE') };
    case 'uuid':
      return { ...base, duckType: 'UUID', pgText: asText, duckCast: cast('UUID') };
    case 'json':
    case 'jsonb':
      return { ...base, duckType: 'JSON', pgText: asText, duckCast: cast('JSON') };
    case 'inet':
      // abbrev() drops the /32 or /128 of a single address, as it is written elsewhere.
      return { ...base, duckType: 'VARCHAR', pgText: `abbrev(${quoted})`, duckCast: quoted };
    case 'bytea':
      return { ...base, duckType: 'BLOB', pgText: `encode(${quoted}, 'hex')`, duckCast: `unhex(${quoted})` };
    default:
      return { ...base, duckType: 'VARCHAR', pgText: asText, duckCast: quoted };
  }
}

/** The widest DECIMAL DuckDB keeps in 64 bits. */
const NARROW_DECIMAL_WIDTH = 18;

/**
 * Text to DECIMAL(width, scale), NULL when it does not fit. A wide column is parsed narrow first and
 * wide only where that fails: the 128-bit parse is far slower, and amounts almost always fit.
 */
export function decimalCast(quoted: string, width: number, scale: number): string {
  const wide = `TRY_CAST(${quoted} AS DECIMAL(${width},${scale}))`;
  // A narrow type with fewer decimals than the column's would round them away.
  if (width <= NARROW_DECIMAL_WIDTH || scale > NARROW_DECIMAL_WIDTH) return wide;
  return `coalesce(CAST(TRY_CAST(${quoted} AS DECIMAL(${NARROW_DECIMAL_WIDTH},${scale})) AS DECIMAL(${width},${scale})), ${wide})`;
}

/** Reads a mirrored table's columns from Postgres and prepares the statements that copy it. */
export async function describeTable(pg: Queryable, table: string): Promise<MirrorTable> {
  assertIdentifier(table);
  const rows = await pg.query<PgColumnRow>(
    `SELECT column_name, data_type, numeric_precision, numeric_scale, column_default
       FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1
      ORDER BY ordinal_position`,
    [table],
  );
  const names = new Set(rows.map((row) => row.column_name));
  for (const required of ['id', '_txid', '_seq']) {
    if (!names.has(required)) throw new Error(`mirrored table ${table} has no ${required} column`);
  }
  for (const reserved of [CURSOR_TXID, CURSOR_SEQ]) {
    if (names.has(reserved)) throw new Error(`mirrored table ${table} uses the reserved column name ${reserved}`);
  }
  const columns = rows.filter((row) => !CURSOR_COLUMNS.has(row.column_name)).map(mapColumn);
  const list = columns.map((column) => q(column.name)).join(', ');
  const stageTable = `_stage_${table}`;
  return {
    name: table,
    columns,
    // The cursor goes out as text under other names: ORDER BY would otherwise sort the text aliases.
    // The rows after the cursor are read in index order first and the horizon filters them after:
    // in the same WHERE the planner reads every row after the cursor for each batch (docs/analytics-mirror.md).
    selectBatch: `SELECT t._txid::text AS ${CURSOR_TXID}, t._seq::text AS ${CURSOR_SEQ}, ${columns.map((c) => `${c.pgText} AS ${q(c.name)}`).join(', ')}
        FROM (SELECT * FROM ${q(table)}
               WHERE (_txid, _seq) > ($1::xid8, $2::bigint)
               ORDER BY _txid, _seq
               LIMIT $3) t
       WHERE t._txid < (${HORIZON})
       ORDER BY t._txid, t._seq`,
    stageTable,
    createStage: `CREATE OR REPLACE TEMP TABLE ${q(stageTable)} (${columns.map((c) => `${q(c.name)} VARCHAR`).join(', ')})`,
    upsertFromStage: `INSERT OR REPLACE INTO ${q(table)} (${list}) SELECT ${columns.map((c) => c.duckCast).join(', ')} FROM temp.main.${q(stageTable)}`,
  };
}

/**
 * Creates the DuckDB table, or adds the columns a later migration gave the Postgres table.
 * Rows already mirrored hold NULL in an added column; when Postgres filled it with a DEFAULT,
 * the table's cursor is reset so every row is copied again (replaced by id, never duplicated).
 */
export async function syncDuckTable(duck: DuckDBConnection, table: MirrorTable): Promise<void> {
  const existing = await duck.runAndReadAll(
    `SELECT column_name FROM information_schema.columns
      WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = $1`,
    [table.name],
  );
  const present = new Set(existing.getRowObjectsJS().map((row) => String(row.column_name)));
  await duck.run('BEGIN TRANSACTION');
  try {
    if (present.size === 0) {
      const defs = table.columns.map((c) => `${q(c.name)} ${c.duckType}${c.name === 'id' ? ' PRIMARY KEY' : ''}`);
      await duck.run(`CREATE TABLE ${q(table.name)} (${defs.join(', ')})`);
    } else {
      const added = table.columns.filter((c) => !present.has(c.name));
      for (const column of added) await duck.run(`ALTER TABLE ${q(table.name)} ADD COLUMN ${q(column.name)} ${column.duckType}`);
      if (added.some((c) => c.hasDefault)) await duck.run(`DELETE FROM ${CURSOR_TABLE} WHERE table_name = $1`, [table.name]);
    }
    await duck.run('COMMIT');
  } catch (error) {
    await duck.run('ROLLBACK').catch(() => {});
    throw error;
  }
  await duck.run(table.createStage);
}

export async function createCursorTable(duck: DuckDBConnection): Promise<void> {
  await duck.run(`CREATE TABLE IF NOT EXISTS ${CURSOR_TABLE} (
    table_name VARCHAR PRIMARY KEY,
    txid UBIGINT NOT NULL,
    seq BIGINT NOT NULL
  )`);
}
