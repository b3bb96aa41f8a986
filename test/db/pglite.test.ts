import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fsyncSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../src/db/db';
import { openPglite } from '../../src/db/pglite';
import { openDb } from '../../src/db/open';
import { tempDir } from '../support/temp-dir';

/** The embedded store on disk syncs its files as Postgres does, by the file layer this adapter gives it. */
describe('embedded store on disk: durability', () => {
  const dir = join(tempDir('pglite'), 'pglite');
  const synced: string[] = [];
  const syncFile = (fd: number) => {
    synced.push(readlinkSync(`/proc/self/fd/${fd}`));
    fsyncSync(fd);
  };
  const walSynced = () => synced.some((path) => path.startsWith(join(dir, 'pg_wal')));
  let db: Db;
  const walFlushed = async () =>
    (await db.query<{ flushed: boolean }>('SELECT pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn() AS flushed'))[0]!.flushed;

  beforeAll(async () => {
    db = await openPglite(dir, { syncFile });
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
  });
  afterAll(() => db.close());

  test('opening syncs every file and directory of the store', () => {
    expect(synced).toEqual(expect.arrayContaining([join(dir, 'PG_VERSION'), join(dir, 'global', 'pg_control'), join(dir, 'base'), dir]));
  });

  test('fsync is on, and the WAL is synced by fsync (the file layer ignores fdatasync)', async () => {
    const settings = await db.query<{ name: string; setting: string }>("SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'wal_sync_method', 'synchronous_commit') ORDER BY name");
    expect(settings).toEqual([
      { name: 'fsync', setting: 'on' },
      { name: 'synchronous_commit', setting: 'on' },
      { name: 'wal_sync_method', setting: 'fsync' },
    ]);
  });

  test('a commit returns once its WAL is synced', async () => {
    synced.length = 0;
    await db.query('INSERT INTO t VALUES ($1, $2)', [1, 'one']);
    expect(walSynced()).toBe(true);
    expect(await walFlushed()).toBe(true);
  });

  test("copyFrom's commit does not wait for the disk; syncCommits syncs the WAL up to it", async () => {
    synced.length = 0;
    await db.copyFrom('t', ['id', 'v'], '2\ttwo\n3\tthree\n');
    expect(walSynced()).toBe(false);
    expect(await walFlushed()).toBe(false);
    await db.syncCommits();
    expect(walSynced()).toBe(true);
    expect(await walFlushed()).toBe(true);
    expect(await db.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  test('a copyFrom that fails commits nothing', async () => {
    await expect(db.copyFrom('t', ['id', 'v'], '4\tfour\n1\tagain\n')).rejects.toThrow();
    expect(await db.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });
});

describe('embedded store: shared_buffers (EMBEDDED_BUFFERS_MB)', () => {
  test('the pool is the size asked for, on disk through openDb and in memory', async () => {
    const dataDir = tempDir('pglite-buffers');
    const onDisk = await openDb({ dataDir, embeddedBuffersMb: 24 });
    try {
      expect(await onDisk.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '24MB' }]);
      // The store keeps its durable settings beside the pool's size.
      expect(await onDisk.query('SHOW fsync')).toEqual([{ fsync: 'on' }]);
    } finally {
      await onDisk.close();
    }
    const inMemory = await openPglite(undefined, { sharedBuffersMb: 16 });
    try {
      expect(await inMemory.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await inMemory.close();
    }
  });

  test("without a size the pool is Postgres's own default", async () => {
    const db = await openPglite();
    try {
      expect(await db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '128MB' }]);
    } finally {
      await db.close();
    }
  });
});
