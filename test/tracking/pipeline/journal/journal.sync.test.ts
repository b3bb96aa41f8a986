import { afterEach, describe, expect, jest, test } from 'bun:test';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openJournal } from '../../../../src/tracking/pipeline/journal/journal';
import { dataSync } from '../../../../src/tracking/pipeline/journal/journal-sync';
import { tempDir } from '../../../support/temp-dir';

const segmentPaths = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => join(dir, name));
/** Lets the syncs the timer started run to their end (the injected syncer answers at once). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

/** A syncer that records the paths it is asked to sync; `failing` makes it throw. */
function recordingSyncer() {
  const synced: string[] = [];
  const state = { failing: false };
  const syncFile = async (path: string) => {
    if (state.failing) throw new Error('EIO');
    synced.push(path);
  };
  return { synced, syncFile, state };
}

describe('journal: syncing what was appended', () => {
  afterEach(() => jest.useRealTimers());

  test('within syncMs of an append the segment is synced, then the directory naming it; nothing while nothing is appended', async () => {
    jest.useFakeTimers();
    const dir = tempDir('journal-sync');
    const { synced, syncFile } = recordingSyncer();
    const journal = openJournal<{ n: number }>(dir, { syncMs: 200, syncFile });
    jest.advanceTimersByTime(1000);
    await settle();
    expect(synced).toEqual([]);

    journal.append({ n: 1 });
    jest.advanceTimersByTime(200);
    await settle();
    const [segment] = segmentPaths(dir);
    expect(synced).toEqual([segment!, dir]);

    // The directory already names the segment: the next sync is the segment's alone.
    journal.append({ n: 2 });
    jest.advanceTimersByTime(200);
    await settle();
    expect(synced).toEqual([segment!, dir, segment!]);

    jest.advanceTimersByTime(2000);
    await settle();
    expect(synced).toHaveLength(3);
    await journal.close();
  });

  test('every segment written since the last sync is synced, a new one named by syncing the directory', async () => {
    jest.useFakeTimers();
    const dir = tempDir('journal-sync');
    const { synced, syncFile } = recordingSyncer();
    const journal = openJournal<{ n: number; text: string }>(dir, { syncMs: 100, segmentBytes: 450, syncFile });
    for (let n = 0; n < 7; n++) journal.append({ n, text: 'x'.repeat(60) }); // three records a segment
    jest.advanceTimersByTime(100);
    await settle();
    expect(synced).toEqual([...segmentPaths(dir), dir]);
    await journal.close();
  });

  test('a failed sync is tried again at the next tick', async () => {
    jest.useFakeTimers();
    const dir = tempDir('journal-sync');
    const { synced, syncFile, state } = recordingSyncer();
    const journal = openJournal<{ n: number }>(dir, { syncMs: 100, syncFile });
    journal.append({ n: 1 });
    state.failing = true;
    jest.advanceTimersByTime(100);
    await settle();
    expect(synced).toEqual([]);
    state.failing = false;
    jest.advanceTimersByTime(100);
    await settle();
    expect(synced).toEqual([...segmentPaths(dir), dir]);
    await journal.close();
  });

  test('syncMs 0 starts no timer; close() syncs what was appended', async () => {
    jest.useFakeTimers();
    const dir = tempDir('journal-sync');
    const { synced, syncFile } = recordingSyncer();
    const journal = openJournal<{ n: number }>(dir, { syncMs: 0, syncFile });
    journal.append({ n: 1 });
    const [segment] = segmentPaths(dir);
    jest.advanceTimersByTime(60_000);
    await settle();
    expect(synced).toEqual([]);
    jest.useRealTimers();
    await journal.close();
    expect(synced).toEqual([segment!, dir]);
  });

  test('close() syncs what the timer has not yet', async () => {
    const dir = tempDir('journal-sync');
    const { synced, syncFile } = recordingSyncer();
    const journal = openJournal<{ n: number }>(dir, { syncMs: 60_000, syncFile });
    journal.append({ n: 1 });
    const [segment] = segmentPaths(dir);
    await journal.close();
    expect(synced).toEqual([segment!, dir]);
  });

  test('segments left by an earlier run are synced: they may have been only in the page cache', async () => {
    const dir = tempDir('journal-sync');
    const first = openJournal<{ n: number }>(dir, { syncMs: 0, syncFile: async () => {} });
    first.append({ n: 1 });
    await first.close();
    const { synced, syncFile } = recordingSyncer();
    const reopened = openJournal<{ n: number }>(dir, { syncMs: 60_000, syncFile });
    const [segment] = segmentPaths(dir);
    await reopened.close();
    expect(synced).toEqual([segment!, dir]);
  });

  test('the default syncer takes a file and a directory, and fails on a missing path', async () => {
    const dir = tempDir('journal-sync');
    const file = join(dir, 'f');
    writeFileSync(file, 'x');
    await dataSync(file);
    await dataSync(dir);
    await expect(dataSync(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
