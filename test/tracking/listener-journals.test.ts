import { describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickPipeline } from '../../src/tracking/click-pipeline';
import { listenerDataDir, replayListenerJournals } from '../../src/tracking/listener-journals';

describe('listener journals at boot', () => {
  test('every listener directory is replayed and stopped in turn; other entries are left alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-listeners-'));
    for (const index of [0, 1, 7]) mkdirSync(join(listenerDataDir(dataDir, index), 'journal'), { recursive: true });
    mkdirSync(join(dataDir, 'listeners', 'not-a-listener'));
    const calls: string[] = [];
    const open = (dir: string): ClickPipeline => ({
      recordClick: () => {},
      recordImpression: () => {},
      flush: async () => {},
      pending: () => 0,
      backlogLimit: () => 0,
      start: async () => void calls.push(`start ${dir}`),
      stop: async () => void calls.push(`stop ${dir}`),
    });
    await replayListenerJournals(dataDir, open);
    expect(calls).toEqual([0, 1, 7].flatMap((index) => [`start ${listenerDataDir(dataDir, index)}`, `stop ${listenerDataDir(dataDir, index)}`]));
  });

  test('a data directory without listener threads has nothing to replay', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-listeners-'));
    let opened = 0;
    await replayListenerJournals(dataDir, () => {
      opened++;
      throw new Error('not expected');
    });
    expect(opened).toBe(0);
  });
});
