import { PGlite, types } from '@electric-sql/pglite';
import { bulkInsertStatements, copyStatement, type Db, type Queryable } from './db';
import { parseTimestamptz } from './timestamptz';

/** `dataDir` undefined keeps the database in memory (tests). */
export async function openPglite(dataDir?: string): Promise<Db> {
  const pg = await PGlite.create(dataDir, {
    parsers: {
      [types.INT8]: (value: string) => Number(value),
      [types.NUMERIC]: (value: string) => Number(value),
      [types.TIMESTAMPTZ]: parseTimestamptz,
    },
  });
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
      // PGlite reads COPY data from a Blob given with the statement, under the name /dev/blob.
      await pg.query(copyStatement(table, columns, "'/dev/blob'"), [], { blob: new Blob([text]) });
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
    async close() {
      await pg.close();
    },
  };
}
