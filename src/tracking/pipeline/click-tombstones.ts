import type { Db } from '../../db/db';
import { sha256Hex } from '../../shared/crypto/secrets';

/**
 * The clicks an erasure named (sql/0117_privacy_erasure.sql), held in memory by the click writer
 * so that a record still in the journal, or replayed from it, is dropped instead of stored
 * (docs/privacy.md, "The click journal"). New tombstones are read at most every `refreshMs`; an
 * erasure's sweep runs later than that, for the records written in between.
 */
export interface ClickTombstones {
  /** The records no erasure named. */
  keep<T extends { id: string; org_id: string }>(records: readonly T[]): Promise<readonly T[]>;
}

export const TOMBSTONE_REFRESH_MS = 5_000;
const PREFIX_LENGTH = 10;

export function createClickTombstones(db: Db, refreshMs = TOMBSTONE_REFRESH_MS, now: () => number = Date.now): ClickTombstones {
  // id prefix -> `${org_id} ${id_hash}` of each tombstone with that prefix.
  const byPrefix = new Map<string, Set<string>>();
  let lastSeq = 0;
  let readAt = -Infinity;
  let reading: Promise<void> | undefined;

  async function readNew(): Promise<void> {
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
  }

  return {
    async keep(records) {
      if (now() - readAt >= refreshMs) {
        reading ??= readNew()
          .then(() => void (readAt = now()))
          .finally(() => (reading = undefined));
        await reading;
      }
      if (byPrefix.size === 0) return records;
      return records.filter((record) => {
        const named = byPrefix.get(record.id.slice(0, PREFIX_LENGTH));
        return !named?.has(`${record.org_id} ${sha256Hex(record.id)}`);
      });
    },
  };
}

const perDb = new WeakMap<Db, ClickTombstones>();

/** The one set of tombstones of a thread's database handle. */
export function clickTombstonesOf(db: Db): ClickTombstones {
  let tombstones = perDb.get(db);
  if (!tombstones) perDb.set(db, (tombstones = createClickTombstones(db)));
  return tombstones;
}
