import { afterAll, describe, expect, test } from 'bun:test';
import { EventEmitter } from 'node:events';
import postgres from 'postgres';
import { openPostgres } from '../../src/db/postgres';
import { backends, createPostgres } from '../support/db';
import { eventually } from '../support/wait';

/*
 * Guards of patches/postgres+3.4.9.patch (its header explains each fault and names the upstream
 * reports). A statement on a cut connection, a COPY refused after its data and a reserve waiting
 * for a connection must each settle at once, so callers retry on their own schedule.
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

    test('a reserved connection whose backend is ended: its statements fail, nothing is thrown, and the pool recovers', async () => {
      const sql = postgres(url, { max: 2, onnotice: () => {} });
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', onUncaught);
      try {
        const reserved = await sql.reserve();
        const [{ pid }] = (await reserved`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        expect(await outcome(reserved`SELECT 1`, 5_000)).toMatch(/^refused/);
        expect(await outcome(reserved`SELECT 1`, 5_000)).toBe('refused CONNECTION_CLOSED');
        reserved.release();
        await Bun.sleep(50);
        expect(uncaught).toEqual([]);
        for (let i = 0; i < 4; i++) expect(await outcome(sql`SELECT 1`, 5_000)).toBe('answered');
      } finally {
        process.off('uncaughtException', onUncaught);
        await sql.end({ timeout: 1 });
      }
    });

    test('a reserve waiting for the only connection gets it back when that connection is ended', async () => {
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        const first = await sql.reserve();
        const [{ pid }] = (await first`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
        const waiting = sql.reserve();
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        const second = await Promise.race([waiting, Bun.sleep(10_000).then(() => null)]);
        expect(second).not.toBeNull();
        expect(await outcome(second!`SELECT 1`, 5_000)).toBe('answered');
        second!.release();
      } finally {
        await sql.end({ timeout: 1 });
      }
    });
  });
}

/**
 * A socket closed while the driver still holds a small write for the next turn must not keep the
 * connection from writing on its next socket. Fake sockets (the driver's `socket` option) make the
 * order certain: the first closes before the driver's deferred write runs.
 */
describe('the Postgres driver, a close with a write pending', () => {
  test('the next connection attempt still sends its startup message', async () => {
    const written: number[] = [];
    const fakeSocket = () => {
      const socket = Object.assign(new EventEmitter(), {
        readyState: 'open',
        setKeepAlive() {},
        write(bytes: Uint8Array) {
          written[attempt] = (written[attempt] ?? 0) + bytes.length;
          return true;
        },
        destroy() {},
        end() {},
      });
      const attempt = written.length;
      written.push(0);
      if (attempt === 0) setImmediate(() => socket.emit('close', false));
      return socket;
    };
    const sql = postgres({ host: 'fake.invalid', max: 1, connect_timeout: 2, socket: fakeSocket } as never);
    void sql`SELECT 1`.catch(() => {});
    for (let i = 0; i < 100 && written.length < 2; i++) await Bun.sleep(20);
    await Bun.sleep(100);
    await sql.end({ timeout: 0 }).catch(() => {});
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written[1]).toBeGreaterThan(0);
  });
});
