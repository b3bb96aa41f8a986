import { describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/db/postgres';
import { backends, createPostgres, onBeforeClose } from '../support/db';
import { eventually } from '../support/wait';

const KEY = 990_001;

for (const backend of backends()) {
  describe(`tryAdvisoryLock on ${backend.name}`, async () => {
    const db = await backend.create();

    test('one holder at a time, without waiting; released, it can be taken again', async () => {
      const held = await db.tryAdvisoryLock(KEY);
      expect(held).not.toBeNull();
      expect(await db.tryAdvisoryLock(KEY)).toBeNull();
      const other = await db.tryAdvisoryLock(KEY + 1);
      expect(other).not.toBeNull();
      await held!.release();
      const again = await db.tryAdvisoryLock(KEY);
      expect(again).not.toBeNull();
      await Promise.all([again!.release(), other!.release()]);
    });
  });
}

// Two nodes need a server both connect to: declared only when the run has Postgres, as the other
// cross-node tests are, so the embedded run neither runs nor skips it.
if (process.env.DATABASE_URL) describe('tryAdvisoryLock across nodes on postgres', () => {
  test("a second node is refused while the first holds the lock; the holder's connection ending frees it", async () => {
    const { db, url } = await createPostgres();
    const first = openPostgres(url, { max: 2 });
    // The driver may wait out its 5 s close timeout for the connection that was cut: closed with the scope.
    onBeforeClose(db, () => first.close());
    const held = await first.tryAdvisoryLock(KEY);
    expect(held).not.toBeNull();
    expect(await db.tryAdvisoryLock(KEY)).toBeNull();
    // The holding node dies without releasing: its connection ends and Postgres drops the lock.
    const holders = await db.query<{ ended: boolean }>(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      [KEY],
    );
    expect(holders).toEqual([{ ended: true }]);
    // The backend ends a moment after the signal.
    const taken = await eventually(() => db.tryAdvisoryLock(KEY), { timeoutMs: 5000 });
    // Nothing to release on the ended connection: the lock went with it.
    await taken.release();
  });
});
