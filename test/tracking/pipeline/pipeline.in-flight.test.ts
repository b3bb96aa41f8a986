import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClickPipeline, THREAD_BATCHES_IN_FLIGHT, type ClickPipeline } from '../../../src/tracking/pipeline/click-pipeline';
import type { ClickWriter } from '../../../src/tracking/pipeline/click-writer';
import { parseLines } from '../../../src/tracking/pipeline/journal/parse-lines';
import type { JournalEntry } from '../../../src/tracking/tracking.model';
import { tempDir } from '../../support/temp-dir';
import { eventually } from '../../support/wait';
import { arrive, fakePostgres, makeClick } from '../support';

/** Records per batch the pipeline hands its writer (click-pipeline.ts BATCH_ROWS). */
const BATCH = 512;
const ORG = '00000000-0000-4000-8000-000000000002';

interface Call {
  ids: string[];
  startedAt: number;
  endedAt?: number;
}

/**
 * A writer on a thread of its own, as the pipeline sees it: batches may overlap. Call `n` (from 1)
 * takes `msOf(n)` and fails when `failOf(n)`; every call is kept, with its records' ids.
 */
function scriptedWriter(msOf: (call: number) => number, failOf: (call: number) => boolean = () => false) {
  const calls: Call[] = [];
  let active = 0;
  let maxActive = 0;
  const writer = (): ClickWriter => ({
    async write(lines, count) {
      const call: Call = { ids: parseLines<JournalEntry>(lines, count).map((entry) => entry.r.id), startedAt: performance.now() };
      calls.push(call);
      const n = calls.length;
      maxActive = Math.max(maxActive, ++active);
      try {
        await Bun.sleep(msOf(n));
        if (failOf(n)) throw new Error(`write ${n} failed`);
      } finally {
        active--;
        call.endedAt = performance.now();
      }
    },
    close: async () => {},
  });
  return { writer, calls, maxActive: () => maxActive };
}

/** Records written, in call order, with how many times each was written. */
const timesWritten = (calls: Call[]) => {
  const times = new Map<string, number>();
  for (const call of calls) for (const id of call.ids) times.set(id, (times.get(id) ?? 0) + 1);
  return times;
};

/** Journals `count` clicks; their ids, in order. */
const recordClicks = (pipeline: ClickPipeline, count: number) =>
  Array.from({ length: count }, () => {
    const click = makeClick(ORG);
    pipeline.recordClick(click);
    return click.id;
  });

describe('click pipeline: batches in flight on a writer thread', () => {
  test(`at full speed the writer is handed ${THREAD_BATCHES_IN_FLIGHT} batches at once, never more, read in journal order, each record once`, async () => {
    // Every second batch finishes before the one handed out before it.
    const { writer, calls, maxActive } = scriptedWriter((n) => (n % 2 === 1 ? 40 : 5));
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { intervalMs: 60_000, batchSize: 100_000 });
    await pipeline.start();
    const ids = recordClicks(pipeline, 10 * BATCH + 7);
    await pipeline.flush();
    expect(pipeline.pending()).toBe(0);
    expect(maxActive()).toBe(THREAD_BATCHES_IN_FLIGHT);
    // A commit out of order would have failed the drain and rewritten records: each is written once.
    expect(calls.flatMap((call) => call.ids)).toEqual(ids);
    expect(calls).toHaveLength(11);
    await pipeline.stop();
  });

  test('a later batch that fails after the earlier one is written: the earlier stays done, the rest is written again, nothing is lost', async () => {
    const { writer, calls } = scriptedWriter(() => 10, (n) => n === 2);
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { intervalMs: 20, batchSize: 100_000 });
    await pipeline.start();
    const ids = recordClicks(pipeline, 4 * BATCH);
    expect(await pipeline.flush().then(() => 'resolved', (error: Error) => error.message)).toBe('write 2 failed');
    // The timer retries once the backoff has passed.
    await eventually(() => pipeline.pending() === 0);
    const times = timesWritten(calls);
    expect([...times.keys()].sort()).toEqual([...ids].sort());
    // The first batch was committed before the second failed: never written again.
    for (const id of ids.slice(0, BATCH)) expect(times.get(id)).toBe(1);
    // The failed batch was read again from its first record.
    for (const id of ids.slice(BATCH, 2 * BATCH)) expect(times.get(id)).toBe(2);
    await pipeline.stop();
  });

  test('an earlier batch that fails while a later one is in flight: the retry waits until the later one is over', async () => {
    // The first batch fails at once, the second takes a while.
    const { writer, calls } = scriptedWriter((n) => (n === 2 ? 300 : 5), (n) => n === 1);
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { intervalMs: 20, batchSize: 100_000 });
    await pipeline.start();
    const ids = recordClicks(pipeline, 3 * BATCH);
    await pipeline.flush().catch(() => {});
    await eventually(() => pipeline.pending() === 0);
    expect(calls[0]!.ids).toEqual(ids.slice(0, BATCH));
    expect(calls[1]!.ids).toEqual(ids.slice(BATCH, 2 * BATCH));
    // The retry starts from the failed batch, once the batch in flight beside it has ended.
    expect(calls[2]!.ids).toEqual(ids.slice(0, BATCH));
    expect(calls[2]!.startedAt).toBeGreaterThanOrEqual(calls[1]!.endedAt!);
    expect(new Set(calls.flatMap((call) => call.ids))).toEqual(new Set(ids));
    await pipeline.stop();
  });

  test('while it gives way to a busy loop, the writer gets one batch at a time', async () => {
    const { writer, calls, maxActive } = scriptedWriter(() => 10);
    const pipeline = createClickPipeline(
      { db: fakePostgres, dataDir: tempDir('pipeline'), writer },
      // A busy loop, and a backlog at nine tenths of its limit: a share between 0 and 1.
      { backlogLimit: 4 * BATCH, loopMeter: { sample: () => {}, busy: () => 1 }, intervalMs: 20 },
    );
    await pipeline.start();
    for (let i = 0; i < Math.round(0.9 * 4 * BATCH); i++) pipeline.recordClick(makeClick(ORG));
    // Clicks keep arriving, a few at a time: traffic is never quiet.
    await arrive(pipeline, ORG, { ms: 600, perRound: 1, everyMs: 20 });
    expect(calls.length).toBeGreaterThan(0);
    expect(maxActive()).toBe(1);
    await pipeline.stop();
    expect(pipeline.pending()).toBe(0);
  });
});

describe('click pipeline: a writer prepared as the pipeline starts', () => {
  test('start() has the writer prepare before it writes anything, the replay of an earlier run included', async () => {
    const dataDir = tempDir('pipeline');
    const events: string[] = [];
    const writer = (): ClickWriter => ({
      prepare: () => events.push('prepare'),
      async write(lines, count) {
        events.push(`write ${parseLines<JournalEntry>(lines, count).length}`);
      },
      close: async () => {},
    });
    // An earlier run left three journaled clicks.
    mkdirSync(join(dataDir, 'journal'));
    const lines = Array.from({ length: 3 }, () => JSON.stringify({ k: 'c', r: makeClick(ORG) }));
    writeFileSync(join(dataDir, 'journal', 'segment-000000000001.jsonl'), `${lines.join('\n')}\n`);
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir, writer }, { intervalMs: 60_000 });
    expect(events).toEqual([]);
    await pipeline.start();
    expect(events).toEqual(['prepare', 'write 3']);
    await pipeline.stop();
  });
});
