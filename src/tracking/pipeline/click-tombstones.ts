import type { Db } from '../../db/db';
import { sha256Hex } from '../../shared/crypto/secrets';

/**
 * The clicks an erasure named (sql/0117_privacy_erasure.sql), held in memory by the click writer
 * so that a record still in the journal, or replayed from it, is dropped instead of stored
 * (docs/privacy.md, "The click journal"). New tombstones are read at most every `refreshMs`; an
 * erasure's sweep runs later than that, for the records written in between.
 */
export interface ClickTombstones {
  /**
   * The records no erasure named. Waits only for the first read of the tombstones (a replay at
   * start sees them all); later, a stale set is refreshed behind the answer, which stays at once,
   * so a statement starts in the turn its records were enriched.
   */
  keep<T extends { id: string; org_id: string }>(records: readonly T[]): readonly T[] | Promise<readonly T[]>;
  /** Reads the tombstones added since the last read. */
  load(): Promise<void>;
}

export const TOMBSTONE_REFRESH_MS = 5_000;
const PREFIX_LENGTH = 10;

export function createClickTombstones(db: Db, refreshMs = TOMBSTONE_REFRESH_MS, now: () => number = Date.now): ClickTombstones {
  // id prefix -> `${org_id} ${id_hash}` of each tombstone with that prefix.
  const byPrefix = new Map<string, Set<string>>();
  let lastSeq = 0;
  let readAt: number | undefined;
  let reading: Promise<void> | undefined;
  let lastErrorLogged = 0;

  async function readNew(): Promise<void> {
    const startedAt = now();
    const rows = await db.query<{ seq: number; org_id: string; id_prefix: string; id_hash: string }>(
      'SELECT seq, org_id, id_prefix, id_hash FROM click_tombstones WHERE seq > $1 ORDER BY seq',
      [lastSeq],
    );
    for (const row of rows) {
      let named = byPrefix.get(row.id_prefix);
      if (!named) byPrefix.set(row.id_prefix, (named = new Set()));
      named.add(`${row.org_id} ${row.id_hash}`);
      lastSeq = Math.max(lastSeq, Number(row.seq));
    }
    readAt = startedAt;
  }

  const load = () => (reading ??= readNew().finally(() => (reading = undefined)));

  function filter<T extends { id: string; org_id: string }>(records: readonly T[]): readonly T[] {
    if (byPrefix.size === 0) return records;
    return records.filter((record) => {
      const named = byPrefix.get(record.id.slice(0, PREFIX_LENGTH));
      return !named?.has(`${record.org_id} ${sha256Hex(record.id)}`);
    });
  }

  return {
    keep(records) {
      if (readAt === undefined) return load().then(() => filter(records));
      if (now() - readAt >= refreshMs) {
        load().catch((error: unknown) => {
          if (Date.now() - lastErrorLogged < 60_000) return;
          lastErrorLogged = Date.now();
          console.error('click tombstones:', error instanceof Error ? error.message : error);
        });
      }
      return filter(records);
    },
    load,
  };
}

const perDb = new WeakMap<Db, ClickTombstones>();

/** The one set of tombstones of a thread's database handle. */
export function clickTombstonesOf(db: Db): ClickTombstones {
  let tombstones = perDb.get(db);
  if (!tombstones) perDb.set(db, (tombstones = createClickTombstones(db)));
  return tombstones;
}
