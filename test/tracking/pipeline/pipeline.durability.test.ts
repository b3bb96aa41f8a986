import { describe, expect, test } from 'bun:test';
import { existsSync, fsyncSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../../src/db/db';
import { migrate } from '../../../src/db/migrate';
import { openPglite } from '../../../src/db/pglite';
import { createIpHasher } from '../../../src/shared/crypto/ip-hash';
import { createClickPipeline, journalDirOf } from '../../../src/tracking/pipeline/click-pipeline';
import type { ClickWriter } from '../../../src/tracking/pipeline/click-writer';
import { createIngestion } from '../../../src/tracking/enrich/ingest';
import { orgWithKey } from '../../support/fixtures';
import { tempDir } from '../../support/temp-dir';
import { eventually } from '../../support/wait';
import { countRows, makeClick } from '../support';

const ORG = '00000000-0000-4000-8000-000000000003';
const segments = (dataDir: string) => readdirSync(journalDirOf(dataDir)).filter((name) => name.endsWith('.jsonl')).sort();

/**
 * A store that records what happens to it, in order: batches written, and syncs, each held open
 * until the test lets it finish. At each sync it notes which segment files were on disk.
 */
function recordingStore(dataDir: string) {
  const events: string[] = [];
  const syncs: { onDisk: string[]; finish: () => void }[] = [];
  const db = {
    kind: 'pglite',
    syncCommits: () =>
      new Promise<void>((resolve) => {
        events.push('sync');
        syncs.push({ onDisk: segments(dataDir), finish: resolve });
      }),
  } as unknown as Db;
  const writer = (): ClickWriter => ({
    write: async (_lines, count) => {
      events.push(`write ${count}`);
    },
    close: async () => {},
  });
  return { db, writer, events, syncs };
}

describe('click pipeline: a segment is deleted only once the store has made its records durable', () => {
  test('commit, then the store syncs, then the segments committed before the sync began are deleted', async () => {
    const dataDir = tempDir('pipeline');
    const store = recordingStore(dataDir);
    const pipeline = createClickPipeline({ db: store.db, dataDir, writer: store.writer }, { intervalMs: 10, journal: { segmentBytes: 8 * 1024 } });
    await pipeline.start();
    for (let i = 0; i < 60; i++) pipeline.recordClick(makeClick(ORG));
    await pipeline.flush();
    const full = segments(dataDir).slice(0, -1); // every segment but the active one
    expect(full.length).toBeGreaterThanOrEqual(2);

    // Every record is committed, and every segment is still on disk until the store has synced.
    await eventually(() => store.syncs.length === 1, { timeoutMs: 10_000, everyMs: 5 });
    expect(store.events.filter((event) => event.startsWith('write')).length).toBeGreaterThan(0);
    expect(store.events.at(-1)).toBe('sync');
    expect(store.syncs[0]!.onDisk).toEqual(expect.arrayContaining(full));
    // Records committed while the store syncs are not covered by that sync.
    for (let i = 0; i < 60; i++) pipeline.recordClick(makeClick(ORG));
    await pipeline.flush();
    const later = segments(dataDir).filter((name) => !full.includes(name)).slice(0, -1);
    expect(later.length).toBeGreaterThanOrEqual(1);
    expect(segments(dataDir)).toEqual(expect.arrayContaining([...full, ...later]));

    store.syncs[0]!.finish();
    await eventually(() => !existsSync(join(journalDirOf(dataDir), full.at(-1)!)), { timeoutMs: 10_000, everyMs: 5 });
    expect(segments(dataDir)).toEqual(expect.arrayContaining(later));
    expect(segments(dataDir).some((name) => full.includes(name))).toBe(false);

    // The next sync covers them.
    await eventually(() => store.syncs.length === 2, { timeoutMs: 10_000, everyMs: 5 });
    expect(store.syncs[1]!.onDisk).toEqual(expect.arrayContaining(later));
    store.syncs[1]!.finish();
    await eventually(() => !existsSync(join(journalDirOf(dataDir), later.at(-1)!)), { timeoutMs: 10_000, everyMs: 5 });

    const stopped = pipeline.stop();
    await eventually(() => store.syncs.length === 3, { timeoutMs: 10_000, everyMs: 5 });
    expect(segments(dataDir)).toHaveLength(1); // the active segment, all committed, waits for the last sync
    store.syncs[2]!.finish();
    await stopped;
    expect(segments(dataDir)).toEqual([]);
  });

  test('a store whose sync fails keeps every segment, for the next start to replay', async () => {
    const dataDir = tempDir('pipeline');
    const store = recordingStore(dataDir);
    (store.db as { syncCommits: () => Promise<void> }).syncCommits = () => Promise.reject(new Error('disk gone'));
    const pipeline = createClickPipeline({ db: store.db, dataDir, writer: store.writer }, { intervalMs: 10, journal: { segmentBytes: 8 * 1024 } });
    await pipeline.start();
    for (let i = 0; i < 60; i++) pipeline.recordClick(makeClick(ORG));
    await pipeline.flush();
    const onDisk = segments(dataDir);
    await pipeline.stop();
    expect(segments(dataDir)).toEqual(onDisk);
  });
});

describe('click pipeline on the embedded store on disk', () => {
  test('segments stay until the store synced its WAL, which holds the committed clicks', async () => {
    const synced: string[] = [];
    const syncFile = (fd: number) => {
      synced.push(readlinkSync(`/proc/self/fd/${fd}`));
      fsyncSync(fd);
    };
    const storeDir = join(tempDir('pipeline'), 'pglite');
    const db = await openPglite(storeDir, { syncFile });
    try {
      await migrate(db);
      const { orgId } = await orgWithKey(db);
      let syncRequested = (): void => {};
      let letSync = (): void => {};
      const gate = new Promise<void>((resolve) => (letSync = resolve));
      const store = Object.create(db) as Db;
      store.syncCommits = async () => {
        syncRequested();
        await gate;
        await db.syncCommits();
      };
      const requested = new Promise<void>((resolve) => (syncRequested = resolve));
      const dataDir = tempDir('pipeline');
      const ingestion = createIngestion({ ipHasher: createIpHasher('durability-test-secret-0123456789-0123456789') });
      const pipeline = createClickPipeline({ db: store, dataDir, enrich: ingestion.enrich }, { intervalMs: 10, journal: { segmentBytes: 16 * 1024 } });
      await pipeline.start();
      for (let i = 0; i < 200; i++) pipeline.recordClick(makeClick(orgId));
      await pipeline.flush();
      expect(await countRows(db, 'clicks', orgId)).toBe(200);
      const onDisk = segments(dataDir);
      expect(onDisk.length).toBeGreaterThanOrEqual(3);

      await requested;
      // The rows are committed, their WAL not yet flushed; every segment is kept.
      const [written] = await db.query<{ lsn: string; flushed: boolean }>(
        'SELECT pg_current_wal_insert_lsn()::text AS lsn, pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn() AS flushed',
      );
      expect(written!.flushed).toBe(false);
      expect(segments(dataDir)).toEqual(onDisk);

      synced.length = 0;
      letSync();
      await eventually(() => segments(dataDir).length === 1, { timeoutMs: 10_000, everyMs: 5 });
      expect(synced.some((path) => path.startsWith(join(storeDir, 'pg_wal')))).toBe(true);
      const [after] = await db.query<{ flushed: boolean }>('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS flushed', [written!.lsn]);
      expect(after!.flushed).toBe(true);
      await pipeline.stop();
      expect(segments(dataDir)).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
