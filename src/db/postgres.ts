import postgres from 'postgres';
import { bulkInsertStatements, copyStatement, type Db, type Queryable, type QueryOptions } from './db';
import { parseTimestamptz } from './timestamptz';
import { backoffDelay, type Backoff } from '../shared/backoff';

/**
 * Values both adapters handle the same way: numbers for int8 and numeric, and json/jsonb
 * parameters given as already-serialised text (callers pass JSON.stringify(x) to `$n::jsonb`,
 * which PGlite stores as the document; porsager would otherwise quote it into a JSON string).
 */
const jsonText = (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x));
const sharedTypes = {
  int8: { to: 20, from: [20], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
  numeric: { to: 1700, from: [1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
  json: { to: 114, from: [114], serialize: jsonText, parse: (x: string) => JSON.parse(x) },
  jsonb: { to: 3802, from: [3802], serialize: jsonText, parse: (x: string) => JSON.parse(x) },
  // Read by parseTimestamptz, as PGlite reads it; written as the driver writes it.
  timestamptz: { to: 1184, from: [1184], serialize: (x: unknown) => (x instanceof Date ? x : new Date(x as string)).toISOString(), parse: parseTimestamptz },
};

/** The longest wait, in seconds, before a pool connection that closed connects again. */
export const RECONNECT_DELAY_MAX_SECONDS = 1;

/** 50 ms doubling to the ceiling; the random half of each wait keeps a node's connections from knocking together. */
const RECONNECT: Backoff = { min: 0.05, max: RECONNECT_DELAY_MAX_SECONDS, jitter: { low: 0.5, width: 0.5 } };

/**
 * Seconds before a closed connection connects again, after `failures` of its pool closed on an
 * error: within the ceiling outage after outage, which the driver's own delay is not on a reserve()
 * (docs/operations.md, "Postgres restarts and refused connections").
 */
export function reconnectDelaySeconds(failures: number): number {
  return backoffDelay(RECONNECT, failures);
}

export function openPostgres(url: string, options: { max?: number; idleTimeoutSeconds?: number } = {}): Db {
  const max = options.max ?? 10;
  const connect = (size: number, settings: Record<string, string> = {}) =>
    postgres(url, {
      max: size,
      idle_timeout: options.idleTimeoutSeconds,
      backoff: reconnectDelaySeconds,
      onnotice: () => {},
      types: sharedTypes,
      connection: { application_name: 'svc', ...settings },
    });
  const sql = connect(max);
  // Statements asked to be planned on every call run on a few connections of their own, where
  // Postgres never reuses a cached plan. They stay prepared: an unnamed statement would cost a
  // second round trip (the driver describes it before binding).
  let customPlans: postgres.Sql | undefined;
  const customPlanPool = () => (customPlans ??= connect(Math.min(4, max), { plan_cache_mode: 'force_custom_plan' }));
  const run = (runner: postgres.Sql | postgres.TransactionSql, inTransaction: boolean): Queryable => ({
    async query<T>(text: string, params: readonly unknown[] = [], queryOptions: QueryOptions = {}) {
      // Prepared: each distinct statement text is parsed once per connection, and Postgres may
      // reuse its plan. Inside a transaction the statement runs on the transaction's connection.
      const target = queryOptions.planEachCall && !inTransaction ? customPlanPool() : runner;
      const rows = await target.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true });
      return rows as unknown as T[];
    },
    async exec(script: string) {
      await runner.unsafe(script).simple();
    },
  });
  const pool = run(sql, false);
  return {
    kind: 'postgres',
    query: pool.query,
    exec: pool.exec,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => sql.begin((tx) => fn(run(tx, true))) as Promise<T>,
    async bulkInsert(table, columns, rows, suffix) {
      let count = 0;
      for (const statement of bulkInsertStatements(table, columns, rows, suffix)) {
        const result = await sql.unsafe(statement.text, statement.params as postgres.ParameterOrJSON<never>[]);
        count += result.count;
      }
      return count;
    },
    async copyFrom(table, columns, text) {
      // On a connection of its own: the driver sends statements on a busy connection without
      // waiting (pipelining), and one sent behind a COPY would reach Postgres in the middle of
      // the COPY's data, which ends the connection. A reserved connection takes nothing else.
      const reserved = await sql.reserve();
      try {
        const stream = await reserved.unsafe(copyStatement(table, columns, 'STDIN')).writable();
        // The stream finishes once Postgres confirms the COPY; an error it reports fails the stream
        // (patches/postgres+3.4.9.patch makes the driver do so for one after the last byte too).
        await new Promise<void>((resolve, reject) => {
          stream.on('error', reject);
          stream.on('finish', resolve);
          stream.end(text);
        });
      } finally {
        reserved.release();
      }
    },
    async listen(channel, onPayload) {
      const subscription = await sql.listen(channel, onPayload);
      return async () => {
        await subscription.unlisten();
      };
    },
    async notify(channel, payload) {
      await sql.notify(channel, payload);
    },
    async tryAdvisoryLock(key) {
      // A session lock belongs to one connection: it is taken and released on a reserved one,
      // which holds nothing else meanwhile.
      const reserved = await sql.reserve();
      try {
        const [row] = await reserved.unsafe('SELECT pg_try_advisory_lock($1) AS locked', [key]);
        if (row?.locked === true) {
          return {
            async release() {
              try {
                await reserved.unsafe('SELECT pg_advisory_unlock($1)', [key]);
              } finally {
                reserved.release();
              }
            },
          };
        }
      } catch (error) {
        reserved.release();
        throw error;
      }
      reserved.release();
      return null;
    },
    async syncCommits() {},
    async close() {
      await Promise.all([sql.end({ timeout: 5 }), customPlans?.end({ timeout: 5 })]);
    },
  };
}
