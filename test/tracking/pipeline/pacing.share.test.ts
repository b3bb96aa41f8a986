import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createClickPipeline } from '../../../src/tracking/pipeline/click-pipeline';
import { BASE_SHARE, BUSY_KNEE, BUSY_LOOP, threadLoopMeter, writeShare, type LoopMeter } from '../../../src/tracking/pipeline/pacing';
import { tempDir } from '../../support/temp-dir';
import { eventually } from '../../support/wait';
import { arrive, fakePostgres, makeClick, timedWriter } from '../support';

const ORG = '00000000-0000-4000-8000-000000000001';
const fraction = fc.double({ min: 0, max: 1, noNaN: true });

describe('the batcher share, alone', () => {
  test('beside a loop that is not busy: a tenth at least, the square of the fill above it, all of it at the limit', () => {
    expect(writeShare(0, 0)).toBe(BASE_SHARE);
    expect(writeShare(0.5, 0.1)).toBeCloseTo(BASE_SHARE + (1 - BASE_SHARE) * 0.25, 12);
    expect(writeShare(1, 0)).toBe(1);
    expect(writeShare(3, 0)).toBe(1);
  });

  test('beside a busy loop: nothing below the knee, then the square of the way from there, all of it at the limit', () => {
    expect(BUSY_KNEE).toBe(0.75);
    expect(writeShare(0, 1)).toBe(0);
    expect(writeShare(BUSY_KNEE, BUSY_LOOP)).toBe(0);
    expect(writeShare(0.875, 0.9)).toBeCloseTo(0.25, 12);
    expect(writeShare(1, 1)).toBe(1);
    expect(writeShare(2, 1)).toBe(1);
  });

  test('an unmeasured loop (NaN) counts as not busy: the batcher never stops for a reading it does not have', () => {
    expect(writeShare(0, Number.NaN)).toBe(BASE_SHARE);
  });

  test('property: the share is within 0 and 1, grows with the fill, and a busy loop never gets more writing than an idle one', () => {
    fc.assert(
      fc.property(fc.double({ min: -1, max: 3, noNaN: true }), fc.double({ min: 0, max: 3, noNaN: true }), fraction, (fill, more, busy) => {
        const share = writeShare(fill, busy);
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(1);
        expect(writeShare(fill + more, busy)).toBeGreaterThanOrEqual(share);
        expect(writeShare(fill, 1)).toBeLessThanOrEqual(writeShare(fill, 0));
        if (fill >= 1) expect(share).toBe(1);
      }),
    );
  });
});

describe('the loop meter', () => {
  /** A meter on a clock and a CPU counter the test moves. */
  const scripted = () => {
    const at = { cpuMicros: 0, ms: 0 };
    const meter = threadLoopMeter(() => at.cpuMicros, () => at.ms);
    const advance = (wallMs: number, cpuMs: number) => {
      at.ms += wallMs;
      at.cpuMicros += cpuMs * 1000;
      meter.sample();
    };
    return { meter, advance };
  };

  test('reads the share of the time the thread was on the CPU, averaged with the reading before', () => {
    const { meter, advance } = scripted();
    expect(meter.busy()).toBe(0);
    advance(100, 80);
    expect(meter.busy()).toBeCloseTo(0.4, 12);
    advance(100, 80);
    expect(meter.busy()).toBeCloseTo(0.6, 12);
    advance(100, 0);
    expect(meter.busy()).toBeCloseTo(0.3, 12);
  });

  test('stays within 0 and 1 whatever the counters say; a reading with no time between waits for the next', () => {
    const { meter, advance } = scripted();
    advance(100, 500); // two cores' worth on one thread cannot be: clamped
    expect(meter.busy()).toBe(0.5);
    advance(0, 50); // no time: nothing read, and the 50 ms count in the next reading
    expect(meter.busy()).toBe(0.5);
    advance(100, -10);
    expect(meter.busy()).toBeCloseTo((0.5 + 0.4) / 2, 12);
    advance(100, -100); // a counter that went back reads as idle, not below it
    expect(meter.busy()).toBeCloseTo(0.45 / 2, 12);
  });
});

describe('the click pipeline beside a busy loop', () => {
  const busyLoop: LoopMeter = { sample: () => {}, busy: () => 1 };
  const LIMIT = 4000;

  test('writes nothing while the backlog is under the knee, writes once it passes, and writes the rest once traffic stops', async () => {
    const { writer, written } = timedWriter(5);
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { backlogLimit: LIMIT, loopMeter: busyLoop });
    await pipeline.start();
    // 20 clicks every 10 ms for 600 ms: about 1,200, under the knee (3,000).
    let recorded = await arrive(pipeline, ORG, { ms: 600, perRound: 20, everyMs: 10 });
    expect(recorded).toBeLessThan(LIMIT * BUSY_KNEE);
    expect(written.records).toBe(0);
    // Past the knee the batcher takes its share again.
    recorded += await arrive(pipeline, ORG, { ms: 1200, perRound: 60, everyMs: 10 });
    expect(recorded).toBeGreaterThan(LIMIT * BUSY_KNEE);
    expect(written.records).toBeGreaterThan(0);
    expect(pipeline.pending()).toBeGreaterThan(0);
    // Quiet: everything is written without a flush.
    await eventually(() => pipeline.pending() === 0, { timeoutMs: 3000, everyMs: 20 });
    expect(written.records).toBe(recorded);
    await pipeline.stop();
  });

  test('beside a loop that is not busy, the same traffic is written behind it as it comes', async () => {
    const { writer, written } = timedWriter(5);
    const idle: LoopMeter = { sample: () => {}, busy: () => 0 };
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { backlogLimit: LIMIT, loopMeter: idle });
    await pipeline.start();
    await arrive(pipeline, ORG, { ms: 600, perRound: 20, everyMs: 10 });
    expect(written.records).toBeGreaterThan(0);
    await pipeline.stop();
  });

  test('a rest set at a tiny share ends once traffic stops (it does not run its full length)', async () => {
    const { writer, written } = timedWriter(50);
    const limit = 10_000;
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { backlogLimit: limit, loopMeter: busyLoop });
    await pipeline.start();
    // Past the knee by a batch (512) and a little: once a batch is written the share is about
    // 5e-4, so a 50 ms batch is followed by a rest of about a minute and a half.
    let recorded = limit * BUSY_KNEE + 540;
    for (let i = 0; i < recorded; i++) pipeline.recordClick(makeClick(ORG));
    recorded += await arrive(pipeline, ORG, { ms: 300, perRound: 1, everyMs: 10 }); // traffic goes on a little: a batch is written, the long rest begins
    expect(written.batches).toBe(1);
    expect(writeShare(pipeline.pending() / limit, 1)).toBeLessThan(1e-3);
    // Quiet after 200 ms, then about ten full-speed batches of 50 ms: all of it is written while
    // the rest set at that share would still run.
    await eventually(() => pipeline.pending() === 0, { everyMs: 20 });
    expect(written.records).toBe(recorded);
    await pipeline.stop();
  });

  test('flush() writes at once what waits beside a busy loop, and stop() writes everything', async () => {
    const { writer, written } = timedWriter(2);
    const pipeline = createClickPipeline({ db: fakePostgres, dataDir: tempDir('pipeline'), writer }, { backlogLimit: LIMIT, loopMeter: busyLoop });
    await pipeline.start();
    let recorded = await arrive(pipeline, ORG, { ms: 200, perRound: 20, everyMs: 10 });
    expect(written.records).toBe(0);
    // Traffic goes on while the flush runs: the flush is not held back by the busy loop.
    const flushing = pipeline.flush();
    const more = arrive(pipeline, ORG, { ms: 200, perRound: 20, everyMs: 10 });
    await flushing;
    expect(written.records).toBeGreaterThanOrEqual(recorded);
    recorded += await more;
    await pipeline.stop();
    expect(written.records).toBe(recorded);
    expect(pipeline.pending()).toBe(0);
  });
});
