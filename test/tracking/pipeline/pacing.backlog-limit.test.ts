import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { FLUSH_BUDGET_MS, MIN_BACKLOG_LIMIT, fixedBacklogLimit, measuredBacklogLimit } from '../../../src/tracking/pipeline/pacing';
import { createClickPipeline, DEFAULT_BACKLOG_LIMIT } from '../../../src/tracking/pipeline/click-pipeline';
import { tempDir } from '../../support/temp-dir';
import { arrive, fakePostgres, makeClick, timedWriter } from '../support';

/** Records per batch the pipeline hands its writer (click-pipeline.ts BATCH_ROWS). */
const BATCH = 512;

describe('the backlog limit, alone', () => {
  test('a fixed limit (CLICK_BACKLOG) never moves', () => {
    const limit = fixedBacklogLimit(123_456);
    limit.observe(BATCH, 1);
    limit.observe(BATCH, 10_000);
    expect(limit.current()).toBe(123_456);
  });

  test('the initial limit stands until a batch is measured, then it is the flush budget at the measured rate', () => {
    const limit = measuredBacklogLimit(250_000);
    expect(limit.current()).toBe(250_000);
    limit.observe(BATCH, 10); // 51.2 records a millisecond
    expect(limit.current()).toBe(Math.round((BATCH / 10) * FLUSH_BUDGET_MS));
  });

  test('a slow measurement never takes the limit below the floor, and nonsense is ignored', () => {
    const limit = measuredBacklogLimit(250_000, 1000);
    limit.observe(0, 5);
    limit.observe(BATCH, 0);
    limit.observe(BATCH, -1);
    limit.observe(Number.NaN, 5);
    expect(limit.current()).toBe(250_000);
    limit.observe(BATCH, 60_000);
    expect(limit.current()).toBe(MIN_BACKLOG_LIMIT);
  });

  test('recent batches weigh more: after the database slows down, the limit follows it', () => {
    const limit = measuredBacklogLimit(250_000);
    for (let i = 0; i < 50; i++) limit.observe(BATCH, 5);
    const fast = limit.current();
    for (let i = 0; i < 100; i++) limit.observe(BATCH, 20);
    const slow = limit.current();
    expect(slow).toBeLessThan(fast / 3);
    expect(slow).toBeGreaterThan((BATCH / 20) * FLUSH_BUDGET_MS * 0.95);
  });

  test('property: the limit lies between the budget at the slowest and at the fastest batch measured', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ records: fc.integer({ min: 1, max: 4096 }), ms: fc.double({ min: 0.01, max: 10_000, noNaN: true }) }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1000, max: 60_000 }),
        (batches, budgetMs) => {
          const limit = measuredBacklogLimit(250_000, budgetMs);
          for (const batch of batches) limit.observe(batch.records, batch.ms);
          const rates = batches.map((batch) => batch.records / batch.ms);
          const low = Math.max(MIN_BACKLOG_LIMIT, Math.floor(Math.min(...rates) * budgetMs));
          const high = Math.max(MIN_BACKLOG_LIMIT, Math.ceil(Math.max(...rates) * budgetMs));
          expect(limit.current()).toBeGreaterThanOrEqual(low);
          expect(limit.current()).toBeLessThanOrEqual(high);
        },
      ),
    );
  });
});

const ORG = '00000000-0000-4000-8000-000000000001';

describe('the backlog limit in the click pipeline', () => {
  test('is measured from full batches written while nothing arrives: the flush budget at the writer rate', async () => {
    const { writer, written } = timedWriter(60);
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer });
    await pipeline.start();
    expect(pipeline.backlogLimit()).toBe(DEFAULT_BACKLOG_LIMIT.postgres);
    for (let i = 0; i < 8 * BATCH; i++) pipeline.recordClick(makeClick(ORG));
    await Bun.sleep(300); // traffic is quiet from here on: the batches that follow are measured
    await pipeline.flush();
    expect(written.records).toBe(8 * BATCH);
    // 512 records in 60 ms (a timer may fire late, never early): at most 8.53 a millisecond.
    const ceiling = (BATCH / 60) * FLUSH_BUDGET_MS;
    expect(pipeline.backlogLimit()).toBeLessThanOrEqual(Math.ceil(ceiling));
    expect(pipeline.backlogLimit()).toBeGreaterThan(ceiling * 0.6);
    await pipeline.stop();
  });

  test('batches written while records keep arriving are not measured (they run beside the redirects, slower)', async () => {
    const { writer, written } = timedWriter(20);
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer });
    await pipeline.start();
    // A record every 50 ms or so, never 200 ms apart: most 20 ms batches start and end between two.
    const recorded = await arrive(pipeline, ORG, { ms: 2000, perRound: 600, everyMs: 50 });
    expect(written.records).toBeGreaterThan(BATCH); // the writer did write full batches meanwhile
    expect(pipeline.backlogLimit()).toBe(DEFAULT_BACKLOG_LIMIT.postgres);
    await pipeline.stop();
    expect(written.records).toBe(recorded);
    // The stop's flush ran with nothing arriving: its full batches were measured.
    expect(pipeline.backlogLimit()).not.toBe(DEFAULT_BACKLOG_LIMIT.postgres);
  });

  test('a trickle of small batches is not measured: their time is mostly the round trip, not the rate', async () => {
    const { writer, written } = timedWriter(20);
    // No timer batch: each round's 10 records are written by the flush, once traffic is quiet.
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { intervalMs: 60_000 });
    await pipeline.start();
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 10; i++) pipeline.recordClick(makeClick(ORG));
      await Bun.sleep(250);
      await pipeline.flush();
    }
    expect(written.records).toBe(40);
    expect(pipeline.backlogLimit()).toBe(DEFAULT_BACKLOG_LIMIT.postgres);
    await pipeline.stop();
  });

  test('CLICK_BACKLOG fixes the limit: measured batches do not move it', async () => {
    const { writer } = timedWriter(60);
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { backlogLimit: 5000 });
    await pipeline.start();
    for (let i = 0; i < 4 * BATCH; i++) pipeline.recordClick(makeClick(ORG));
    await Bun.sleep(300);
    await pipeline.flush();
    expect(pipeline.backlogLimit()).toBe(5000);
    await pipeline.stop();
  });

  test('the replay at start is not measured: it runs alone, while a stop flushes beside the other pipelines', async () => {
    const dataDir = tempDir('pipeline');
    const refusing = createClickPipeline(
      { db: fakePostgres, dataDir, writer: () => ({ write: () => Promise.reject(new Error('database unavailable')), close: async () => {} }) },
      { stopTimeoutMs: 100 },
    );
    await refusing.start();
    for (let i = 0; i < 4 * BATCH; i++) refusing.recordClick(makeClick(ORG));
    await refusing.stop();

    const { writer, written } = timedWriter(10);
    const replaying = createClickPipeline({ db: fakePostgres, dataDir, writer });
    await replaying.start();
    expect(written.records).toBe(4 * BATCH);
    expect(replaying.backlogLimit()).toBe(DEFAULT_BACKLOG_LIMIT.postgres);
    await replaying.stop();
  });
});
