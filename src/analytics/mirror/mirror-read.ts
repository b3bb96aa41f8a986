import {
  DuckDBDateValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  JSDuckDBValueConverter,
  StatementType,
  timestampTZValue,
  type DuckDBConnection,
  type DuckDBInstance,
  type DuckDBValue,
  type DuckDBValueConverter,
  type JS,
} from '@duckdb/node-api';

/**
 * Values come back the way the Db adapters hand back Postgres values: BIGINT, HUGEINT and
 * DECIMAL as number, timestamps and dates as Date. An infinite timestamp has no Date, so it
 * stays the text 'infinity' / '-infinity'.
 */
const toJs: DuckDBValueConverter<JS> = (value, type, converter) => {
  if (typeof value === 'bigint') return Number(value);
  if ((value instanceof DuckDBTimestampTZValue || value instanceof DuckDBTimestampValue || value instanceof DuckDBDateValue) && !value.isFinite) {
    return value.toString();
  }
  return JSDuckDBValueConverter(value, type, converter);
};

function toDuck(value: unknown): DuckDBValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return timestampTZValue(BigInt(value.getTime()) * 1000n);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value;
  throw new Error(`unsupported analytics query parameter: ${typeof value}`);
}

/**
 * Runs one read on the mirror. Only a single SELECT is accepted, checked on the prepared
 * statement rather than by reading the text, so a write or a second statement never runs.
 * Parameters are $1, $2 ... as in the Postgres SQL of the rest of the code.
 */
export async function readRows<T>(connection: DuckDBConnection, sql: string, params: readonly unknown[]): Promise<T[]> {
  const prepared = await connection.prepare(sql);
  try {
    if (prepared.statementType !== StatementType.SELECT) throw new Error('analytics queries are read-only: one SELECT statement');
    prepared.bind(params.map(toDuck));
    const reader = await prepared.runAndReadAll();
    return reader.convertRowObjects(toJs) as T[];
  } finally {
    prepared.destroySync();
  }
}

/** The reads on one mirror: each on a connection of its own, so reads run beside a round's writes. */
export interface Reads {
  query<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** Settles once every read under way has ended: DuckDB closes only after it. */
  drain(): Promise<void>;
}

export function createReads(instance: DuckDBInstance): Reads {
  const reads = new Set<Promise<unknown>>();
  return {
    async query<T>(sql: string, params: readonly unknown[]) {
      const connection = await instance.connect();
      const read = readRows<T>(connection, sql, params).finally(() => connection.closeSync());
      const tracked: Promise<void> = read.then(
        () => void reads.delete(tracked),
        () => void reads.delete(tracked),
      );
      reads.add(tracked);
      return read;
    },
    async drain() {
      await Promise.all(reads);
    },
  };
}
