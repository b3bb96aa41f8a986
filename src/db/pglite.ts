import { PGlite, types } from '@electric-sql/pglite';
import { inMemoryAdvisoryLocks } from './in-memory-advisory-locks';
import { bulkInsertStatements, copyStatement, type Db, type Queryable } from './db';
import { SyncingNodeFS, syncTree, type SyncFile } from './pglite-fs';
import { parseTimestamptz } from './timestamptz';

/**
 * PGlite's own start parameters less `-F` (fsync off), with the WAL synced by fsync: the
 * WebAssembly layer's fdatasync does nothing, its fsync reaches SyncingNodeFS.
 */
const DURABLE_START_PARAMS = [...PGlite.defaultStartParams.filter((param) => param !== '-F'), '-c', 'wal_sync_method=fsync'];

export interface PgliteOptions {
  /** How a file of the store reaches the disk (tests count the calls). */
  syncFile?: SyncFile;
  /** Postgres's shared_buffers, in MiB: a pool inside the WebAssembly heap (EMBEDDED_BUFFERS_MB). */
  sharedBuffersMb?: number;
}

/**
 * `dataDir` undefined keeps the database in memory (tests). On disk a commit returns once its WAL
 * is synced, as on Postgres, except copyFrom's (see syncCommits).
 */
export async function openPglite(dataDir?: string, options: PgliteOptions = {}): Promise<Db> {
  const parsers = {
    [types.INT8]: (value: string) => Number(value),
    [types.NUMERIC]: (value: string) => Number(value),
    [types.TIMESTAMPTZ]: parseTimestamptz,
  };
  const buffers = options.sharedBuffersMb === undefined ? [] : ['-c', `shared_buffers=${options.sharedBuffersMb}MB`];
  const pg = dataDir === undefined
    ? await PGlite.create({ parsers, startParams: [...PGlite.defaultStartParams, ...buffers] })
    : await PGlite.create({ parsers, fs: new SyncingNodeFS(dataDir, options.syncFile), startParams: [...DURABLE_START_PARAMS, ...buffers] });
  if (dataDir !== undefined) syncTree(dataDir, options.syncFile);
  const run = (runner: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<T>(text: string, params: readonly unknown[] = []) {
      const result = await runner.query<T>(text, params as unknown[]);
      return result.rows;
    },
    async exec(script: string) {
      await runner.exec(script);
    },
  });
  const self = run(pg);
  return {
    kind: 'pglite',
    query: self.query,
    exec: self.exec,
    transaction: (fn) => pg.transaction((tx) => fn(run(tx))),
    async bulkInsert(table, columns, rows, suffix) {
      let count = 0;
      for (const statement of bulkInsertStatements(table, columns, rows, suffix)) {
        const result = await pg.query(statement.text, statement.params);
        count += result.affectedRows ?? 0;
      }
      return count;
    },
    async copyFrom(table, columns, text) {
      // The click writer's rows are still in its journal: their commit does not wait for the
      // disk, the journal keeps them until syncCommits. PGlite reads COPY data from a Blob given
      // with the statement, under the name /dev/blob.
      await pg.transaction(async (tx) => {
        await tx.exec('SET LOCAL synchronous_commit TO off');
        await tx.query(copyStatement(table, columns, "'/dev/blob'"), [], { blob: new Blob([text]) });
      });
    },
    async syncCommits() {
      // A WAL message flushed at once: the WAL up to it, every earlier commit included, is synced.
      await pg.query('SELECT pg_logical_emit_message(false, $1, $2, true)', ['svc.sync', '']);
    },
    async listen(channel, onPayload) {
      const unsubscribe = await pg.listen(channel, onPayload);
      return async () => {
        await unsubscribe();
      };
    },
    async notify(channel, payload) {
      await pg.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    tryAdvisoryLock: inMemoryAdvisoryLocks(),
    async close() {
      await pg.close();
    },
  };
}
