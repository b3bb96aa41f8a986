/**
 * npm run bench:loop-meter
 *
 * What the click pipeline's loop meter (threadLoopMeter, src/tracking/pipeline/pacing.ts) reads on
 * this machine's real thread: after BENCH_READINGS readings BENCH_READING_MS apart of a loop that
 * spins, then of one that sleeps, against BUSY_LOOP, from which the batcher counts a loop busy. A
 * thread that waits for a core reads lower than it spins (a loaded machine). One JSON line.
 */
import { BUSY_LOOP, threadLoopMeter } from '../src/tracking/pipeline/pacing';

const READINGS = Number(process.env.BENCH_READINGS ?? 4);
const READING_MS = Number(process.env.BENCH_READING_MS ?? 50);
const round = (value: number) => Math.round(value * 1000) / 1000;

const meter = threadLoopMeter();
for (let i = 0; i < READINGS; i++) {
  const until = performance.now() + READING_MS;
  while (performance.now() < until);
  meter.sample();
}
const spinning = meter.busy();
for (let i = 0; i < READINGS; i++) {
  await Bun.sleep(READING_MS);
  meter.sample();
}
const sleeping = meter.busy();

console.log(
  JSON.stringify({
    bench: 'loop-meter',
    readings: READINGS,
    reading_ms: READING_MS,
    busy_loop: BUSY_LOOP,
    spinning: round(spinning),
    sleeping: round(sleeping),
    spinning_reads_busy: spinning >= BUSY_LOOP,
    sleeping_reads_busy: sleeping >= BUSY_LOOP,
  }),
);
