import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { journalDirOf, type ClickPipeline } from '../../../src/tracking/pipeline/click-pipeline';
import { listenerDataDir, replayListenerJournals } from '../../../src/tracking/listeners/listener-journals';
import { tempDir } from '../../support/temp-dir';

describe('listener journals at boot', () => {
  test('every listener journal holding segments is replayed and stopped in turn; other entries are left alone', async () => {
    const dataDir = tempDir('listeners');
    for (const index of [0, 1, 7]) {
      mkdirSync(journalDirOf(listenerDataDir(dataDir, index)), { recursive: true });
      writeFileSync(join(journalDirOf(listenerDataDir(dataDir, index)), 'segment-000000000003.jsonl'), '{"k":"c"}\n');
    }
    mkdirSync(join(dataDir, 'listeners', 'not-a-listener'));
    const calls: string[] = [];
    const open = (dir: string): ClickPipeline => ({
      recordClick: () => {},
      recordImpression: () => {},
      stageWhile: (run) => run(),
      writeStaged: () => {},
      stagedLosses: () => 0,
      flush: async () => {},
      pending: () => 0,
      writerState: () => 'ok',
      backlogLimit: () => 0,
      start: async () => void calls.push(`start ${dir}`),
      stop: async () => void calls.push(`stop ${dir}`),
    });
    await replayListenerJournals(dataDir, open);
    expect(calls).toEqual([0, 1, 7].flatMap((index) => [`start ${listenerDataDir(dataDir, index)}`, `stop ${listenerDataDir(dataDir, index)}`]));
  });

  test('a listener journal with no segment (everything written) is not opened', async () => {
    const dataDir = tempDir('listeners');
    // Thread 0 wrote everything at its last stop; thread 1 never journaled; thread 2 left a segment.
    mkdirSync(journalDirOf(listenerDataDir(dataDir, 0)), { recursive: true });
    writeFileSync(join(journalDirOf(listenerDataDir(dataDir, 0)), 'refused.jsonl'), '{}\n');
    mkdirSync(listenerDataDir(dataDir, 1), { recursive: true });
    mkdirSync(journalDirOf(listenerDataDir(dataDir, 2)), { recursive: true });
    writeFileSync(join(journalDirOf(listenerDataDir(dataDir, 2)), 'segment-000000000001.jsonl'), '{"k":"c"}\n');
    const opened: string[] = [];
    await replayListenerJournals(dataDir, (dir) => {
      opened.push(dir);
      return { start: async () => {}, stop: async () => {} } as unknown as ClickPipeline;
    });
    expect(opened).toEqual([listenerDataDir(dataDir, 2)]);
  });

  test('a data directory without listener threads has nothing to replay', async () => {
    const dataDir = tempDir('listeners');
    let opened = 0;
    await replayListenerJournals(dataDir, () => {
      opened++;
      throw new Error('not expected');
    });
    expect(opened).toBe(0);
  });
});
