import type { DuckDBConnection } from '@duckdb/node-api';
import type { Queryable } from '../../db/db';
import { copyTable } from './mirror-copy';
import { applyDeletions, DELETIONS_TABLE } from './mirror-deletes';
import { describeTable, syncDuckTable, type MirrorTable } from './mirror-schema';

export interface RoundsOptions {
  db: Queryable;
  /** The one DuckDB connection that writes: rounds never overlap on it. */
  writer: DuckDBConnection;
  /** Checked identifiers of the tables to copy. */
  names: readonly string[];
  batchSize: number;
}

/**
 * A round copies every table once over. `more()` is asked between batches: false ends the
 * round early (each table still gets one batch).
 */
export interface Rounds {
  /** A round at once, outside the queue: for stop(), once the queue has drained. */
  run(more?: () => boolean): Promise<number>;
  /** A round after every round already queued. */
  enqueue(more?: () => boolean): Promise<number>;
  /** Settles once every round queued so far has ended, failed or not. */
  idle(): Promise<unknown>;
}

export function createRounds({ db, writer, names, batchSize }: RoundsOptions): Rounds {
  // Described once per process, on the first round that reaches Postgres: a column a migration
  // added since the last run is added to DuckDB here.
  let tables: MirrorTable[] | undefined;
  let chain: Promise<unknown> = Promise.resolve();

  async function describeAll(): Promise<MirrorTable[]> {
    if (tables) return tables;
    const described: MirrorTable[] = [];
    for (const name of names) {
      const table = await describeTable(db, name);
      await syncDuckTable(writer, table);
      described.push(table);
    }
    tables = described;
    return described;
  }

  async function run(more: () => boolean = () => true): Promise<number> {
    let copied = 0;
    let firstError: unknown;
    // One failing table (a cast it cannot make, say) must not stop the others.
    for (const table of await describeAll()) {
      try {
        copied += await copyTable(writer, db, table, batchSize, more);
      } catch (error) {
        firstError ??= error;
      }
    }
    // Rows deleted in Postgres go after the copy, so a row copied this round is deleted too.
    if (firstError === undefined && names.includes(DELETIONS_TABLE)) await applyDeletions(writer, names);
    if (firstError !== undefined) throw firstError;
    return copied;
  }

  // Rounds never overlap: a catchUp() that arrives mid-round runs a full round after it, so it
  // sees every row that committed before the call.
  function enqueue(more?: () => boolean): Promise<number> {
    const queued = chain.then(() => run(more));
    chain = queued.catch(() => {});
    return queued;
  }

  return { run, enqueue, idle: () => chain };
}
