import { afterAll, describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/db/postgres';
import { backends, createPostgres } from '../support/db';
import { eventually } from '../support/wait';

/*
 * scripts/patch-postgres-driver.mjs (run after every install) fixes two of the driver's hangs:
 * - after a connection was cut mid-statement, a statement that needs a new connection while
 *   Postgres refuses it at startup used to wait, with the driver reconnecting ~100 times a
 *   second, until Postgres accepted again;
 * - a COPY ... FROM STDIN that Postgres refused after receiving all its data (a unique violation
 *   found when its rows are inserted at the end) never settled.
 * Each must fail at once, so callers retry or fall back on their own schedule.
 */
const outcome = (promise: Promise<unknown>, waitMs: number) =>
  Promise.race([
    promise.then(
      () => 'answered',
      (error: { code?: string }) => `refused ${error.code ?? ''}`.trim(),
    ),
    Bun.sleep(waitMs).then(() => 'still waiting'),
  ]);

for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe(`the Postgres driver on ${backend.name}`, async () => {
    const { url, name } = await createPostgres({ migrated: false });
    const admin = openPostgres(process.env.DATABASE_URL!, { max: 1 });
    afterAll(() => admin.close());
    const allowConnections = (allow: boolean) => admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS ${allow}`);

    test('a statement cut with its connection, then one refused at startup: both fail at once, and the pool recovers', async () => {
      const db = openPostgres(url, { max: 1 });
      try {
        expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
        const cut = db.query('SELECT pg_sleep(30)');
        // Wait until the statement runs, so the connection is cut in the middle of it.
        await eventually(
          async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'SELECT pg_sleep%'", [name])).length > 0,
          { everyMs: 10 },
        );
        let refused: string;
        try {
          await allowConnections(false);
          await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
          expect(await outcome(cut, 5_000)).toBe('refused CONNECTION_CLOSED');
          refused = await outcome(db.query('SELECT 2 AS two'), 5_000);
        } finally {
          await allowConnections(true);
        }
        // 55000: object_not_in_prerequisite_state, "database ... is not currently accepting connections".
        expect(refused).toBe('refused 55000');
        expect(await db.query<{ three: number }>('SELECT 3 AS three')).toEqual([{ three: 3 }]);
      } finally {
        await db.close();
      }
    });

    test('a COPY refused after its last byte fails with the SQLSTATE, and the connection serves the next statement', async () => {
      const db = openPostgres(url, { max: 1 });
      try {
        await db.exec('CREATE TABLE copy_late_error (id text PRIMARY KEY)');
        await db.copyFrom('copy_late_error', ['id'], 'a\n');
        // The rows are inserted when the COPY ends, so the duplicate is found after the data was sent.
        expect(await outcome(db.copyFrom('copy_late_error', ['id'], 'b\na\n'), 5_000)).toBe('refused 23505');
        expect(await db.query<{ n: number }>('SELECT count(*)::int AS n FROM copy_late_error')).toEqual([{ n: 1 }]);
      } finally {
        await db.close();
      }
    });
  });
}
