/**
 * The analytics benches' two stores, seeded alike: a throwaway Postgres database and a DuckDB file
 * whose tables are the ones the mirror creates. Large tables are written by one SELECT per table
 * over integers, spelled once for both stores (`seedSelects(text, secs)`); copying tens of
 * millions of rows through the mirror would measure the copy, which bench:mirror does. The
 * mirror's DuckDB tables carry no column defaults: a seed names every column a report reads
 * (a cost's currency, say), or the two stores would hold different rows.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { createMirror } from '../src/analytics/mirror/mirror';
import type { Db } from '../src/db/db';
import { openPostgres } from '../src/db/postgres';

/** One large table's seed: its columns and the SELECT list over `i`. */
export interface SeedSpec {
  columns: string;
  select: string;
}

/** Each store's spelling of a cast to text and of `x` seconds as an interval. */
export const POSTGRES_SPELLING = { text: (x: string) => `(${x})::text`, secs: (x: string) => `make_interval(secs => ${x})` };
export const DUCKDB_SPELLING = { text: (x: string) => `CAST(${x} AS VARCHAR)`, secs: (x: string) => `to_seconds(${x})` };

const CHUNK = 1_000_000;

/**
 * Seeds Postgres: `small` statements first (organizations, apps, campaigns, costs), then each
 * large table in chunks of a million. Secondary indexes of the large tables are dropped for the
 * load and made again after it (one sort per index instead of millions of inserts into each),
 * and it ends with VACUUM ANALYZE. Returns the seconds it took.
 */
export async function seedPostgres(url: string, small: readonly string[], large: Record<string, SeedSpec>, counts: Record<string, number>, log: (message: string) => void): Promise<number> {
  const started = performance.now();
  const db = openPostgres(url, { max: 2 });
  for (const statement of small) await db.query(statement);
  const tables = Object.keys(large);
  const indexes = await db.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = ANY($1)
        AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    [tables],
  );
  for (const index of indexes) await db.query(`DROP INDEX ${index.indexname}`);
  for (const [table, spec] of Object.entries(large)) {
    const total = counts[table]!;
    // The seed writes every column itself, the keys the store's triggers would look up too
    // (events.install_key): a lookup per row would be most of the load's time.
    await db.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
    for (let from = 0; from < total; from += CHUNK) {
      const to = Math.min(total, from + CHUNK) - 1;
      await db.query(`INSERT INTO ${table} (${spec.columns}) SELECT ${spec.select} FROM generate_series(${from}::bigint, ${to}::bigint) AS g(i)`);
      log(`postgres ${table} ${to + 1} / ${total}`);
    }
    await db.query(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
  }
  for (const index of indexes) await db.query(index.indexdef);
  log(`postgres ${indexes.length} indexes made again`);
  await db.exec('VACUUM ANALYZE');
  await db.close();
  return (performance.now() - started) / 1000;
}

/**
 * Seeds the DuckDB file: the tables as the mirror creates them (one round over the migrated,
 * still empty database), then `small` and the large tables. Returns the seconds it took.
 */
export async function seedDuck(url: string, file: string, small: readonly string[], large: Record<string, SeedSpec>, counts: Record<string, number>, log: (message: string) => void): Promise<number> {
  const started = performance.now();
  const db = openPostgres(url, { max: 1 });
  const empty = await createMirror({ db, path: file, intervalMs: 0, log: () => {} });
  await empty.catchUp();
  await empty.stop();
  await db.close();
  const instance = await DuckDBInstance.create(file, { threads: '2', memory_limit: '2GiB' });
  const duck = await instance.connect();
  for (const statement of small) await duck.run(statement);
  for (const [table, spec] of Object.entries(large)) {
    const total = counts[table]!;
    for (let from = 0; from < total; from += CHUNK) {
      const to = Math.min(total, from + CHUNK);
      await duck.run(`INSERT INTO ${table} (${spec.columns}) SELECT ${spec.select} FROM range(${from}, ${to}) AS g(i)`);
    }
    log(`duckdb ${table} ${total}`);
  }
  await duck.run('CHECKPOINT');
  duck.closeSync();
  instance.closeSync();
  return (performance.now() - started) / 1000;
}

/** A warm-up run (caches filled, plans made), then `runs` timed runs; the last answer. */
export async function timed<T>(runs: number, run: () => Promise<T>): Promise<{ ms: number[]; result: T }> {
  let result = await run();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    result = await run();
    ms.push(Math.round((performance.now() - started) * 10) / 10);
  }
  return { ms, result };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Postgres's parallel-query setting, reported beside its times. */
export async function parallelWorkers(db: Db): Promise<number> {
  const [workers] = await db.query<{ max_parallel_workers_per_gather: string }>('SHOW max_parallel_workers_per_gather');
  return Number(workers?.max_parallel_workers_per_gather);
}
