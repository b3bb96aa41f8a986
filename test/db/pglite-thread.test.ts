import { describe, expect, test } from 'bun:test';
import type { Db } from '../../src/db/db';
import { openPgliteThread } from '../../src/db/pglite.thread';
import { tempDir } from '../support/temp-dir';

/** The failure of `work`, or null. */
async function failureOf(work: Promise<unknown>): Promise<Record<string, unknown> | null> {
  try {
    await work;
    return null;
  } catch (error) {
    return error as Record<string, unknown>;
  }
}

describe('the embedded store in a thread of its own (EMBEDDED_STORE_THREAD=on)', () => {
  test('another thread reaches the same store over a port of its own, and closing that port leaves the store open', async () => {
    const db: Db = await openPgliteThread(tempDir('pglite-thread'), { sharedBuffersMb: 16 });
    const other = new Worker(new URL('../support/store-port.worker.ts', import.meta.url).href);
    try {
      await db.exec('CREATE TABLE t (id text PRIMARY KEY)');
      const messages: Record<string, unknown>[] = [];
      other.onmessage = (event) => {
        messages.push(event.data);
        if (event.data.kind === 'listening') void db.notify('to_thread', 'hello');
      };
      const port = db.storeChannel!();
      other.postMessage({ port }, [port]);
      for (let i = 0; i < 500 && !messages.some((m) => m.kind === 'heard' || m.kind === 'failed'); i++) await Bun.sleep(10);
      expect(messages.filter((m) => m.kind !== 'listening')).toEqual([
        { kind: 'wrote', inside: 2, refused: '23505' },
        { kind: 'heard', payload: 'hello' },
      ]);
      // The thread closed its end: the store still answers the thread that opened it.
      for (let i = 0; i < 50; i++) await Bun.sleep(10);
      expect(await db.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 'from-thread' }, { id: 'in-transaction' }]);
    } finally {
      other.terminate();
      await db.close();
    }
  });

  test('statements, transactions, COPY, LISTEN/NOTIFY keep their meaning across the channel', async () => {
    const db: Db = await openPgliteThread(tempDir('pglite-thread'), { sharedBuffersMb: 16 });
    try {
      expect(await db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
      await db.exec('CREATE TABLE t (id text PRIMARY KEY, n bigint, at timestamptz)');
      // The adapter's parsers still apply: bigint as number, timestamptz as Date.
      await db.query('INSERT INTO t VALUES ($1, $2, $3)', ['a', 7, new Date('2026-01-02T03:04:05Z')]);
      expect(await db.query('SELECT id, n, at FROM t')).toEqual([{ id: 'a', n: 7, at: new Date('2026-01-02T03:04:05Z') }]);
      // A database error keeps its SQLSTATE and constraint, which callers branch on. The matcher
      // waits on the event loop from a continuation of the last answer: it stalled while answers
      // were settled inside the thread's message dispatch (oven-sh/bun#37189).
      await expect(db.query("INSERT INTO t (id) VALUES ('a')")).rejects.toMatchObject({ code: '23505', constraint: 't_pkey' });
      await expect(db.query('SELECT 2 AS two')).resolves.toEqual([{ two: 2 }]);

      expect(await db.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES ('b')");
        return tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
      })).toEqual([{ n: 2 }]);
      await expect(db.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES ('c')");
        throw new Error('changed my mind');
      })).rejects.toThrow('changed my mind');
      expect(await db.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 'a' }, { id: 'b' }]);

      await db.copyFrom('t', ['id', 'n'], 'd\t1\ne\t2\n');
      await db.syncCommits();
      await expect(db.copyFrom('t', ['id'], 'f\nd\n')).rejects.toMatchObject({ code: '23505' });
      expect(await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).toEqual([{ n: 4 }]);
      expect(await db.bulkInsert('t', ['id'], [['g'], ['h']], 'ON CONFLICT DO NOTHING')).toBe(2);

      const heard: string[] = [];
      const unlisten = await db.listen('changes', (payload) => heard.push(payload));
      await db.notify('changes', 'one');
      await db.query("SELECT pg_notify('changes', 'two')");
      for (let i = 0; i < 100 && heard.length < 2; i++) await Bun.sleep(10);
      expect(heard).toEqual(['one', 'two']);
      await unlisten();
      await db.notify('changes', 'unheard');
      await db.query('SELECT 1');
      expect(heard).toEqual(['one', 'two']);

      const lock = await db.tryAdvisoryLock(5);
      expect(lock).not.toBeNull();
      expect(await db.tryAdvisoryLock(5)).toBeNull();
      await lock!.release();
    } finally {
      await db.close();
    }
  });

  test('a store that cannot open fails the open with its reason', async () => {
    const file = `${tempDir('pglite-thread')}/not-a-directory`;
    await Bun.write(file, 'x');
    const failure = await failureOf(openPgliteThread(file));
    expect(failure).toBeInstanceOf(Error);
  });

  test('the thread ending under a statement fails that statement and reports the crash; nothing after it runs', async () => {
    let thread: Worker | undefined;
    const crashes: Error[] = [];
    const db = await openPgliteThread(undefined, { onSpawn: (worker) => (thread = worker), onCrash: (error) => crashes.push(error) });
    await db.exec('CREATE TABLE t (id text)');
    const pending = db.query('SELECT pg_sleep(2)');
    thread!.terminate();
    const failure = await failureOf(pending);
    expect(String(failure?.message)).toContain("the embedded store's thread");
    expect(crashes).toHaveLength(1);
    expect(String((await failureOf(db.query('SELECT 1')))?.message)).toContain("the embedded store's thread");
  });
});
