import { describe, expect, test } from 'bun:test';
import { IDLE_SHARE, idleCollector, QUIET_READINGS, READING_MS, WORK_MS } from '../../src/shared/idle-collection';

/** A thread on a fake clock: each reading one second, spending `share` of it on the CPU. */
function fakeThread() {
  const state = { cpu: 0, at: 0, collected: 0 };
  const collector = idleCollector({
    cpuMicros: () => state.cpu,
    now: () => state.at,
    collect() {
      state.collected++;
      state.cpu += 80_000; // a collection's own CPU time
    },
  });
  return {
    state,
    second(share: number) {
      state.at += READING_MS;
      state.cpu += share * READING_MS * 1000;
      return collector.reading();
    },
  };
}

describe('collecting a burst’s garbage once the thread is idle', () => {
  test('after a burst, it collects once the thread has been idle for the quiet readings, and only once', () => {
    const thread = fakeThread();
    for (let i = 0; i < 10; i++) expect(thread.second(0.9)).toBe(false);
    const quiet: boolean[] = [];
    for (let i = 0; i < QUIET_READINGS + 5; i++) quiet.push(thread.second(0.01));
    expect(quiet.indexOf(true)).toBe(QUIET_READINGS - 1);
    expect(thread.state.collected).toBe(1);
  });

  test('never beside traffic, however long it lasts', () => {
    const thread = fakeThread();
    for (let i = 0; i < 100; i++) thread.second(IDLE_SHARE * 4);
    expect(thread.state.collected).toBe(0);
  });

  test('one busy reading starts the quiet count afresh', () => {
    const thread = fakeThread();
    thread.second(0.9);
    thread.second(0.9);
    for (let i = 0; i < QUIET_READINGS - 1; i++) thread.second(0);
    thread.second(0.5);
    for (let i = 0; i < QUIET_READINGS - 1; i++) expect(thread.second(0)).toBe(false);
    expect(thread.second(0)).toBe(true);
  });

  test('an idle thread that did little since its last collection is left alone', () => {
    const thread = fakeThread();
    thread.second((WORK_MS / READING_MS) * 0.9);
    for (let i = 0; i < 20; i++) thread.second(0);
    expect(thread.state.collected).toBe(0);
  });

  test('a trickle adds up: light traffic is collected in a quiet gap once it did a burst’s work', () => {
    const thread = fakeThread();
    const trickle = IDLE_SHARE / 2; // under the idle share: every reading is quiet
    const readings = Math.ceil(WORK_MS / READING_MS / trickle);
    for (let i = 0; i < readings - 1; i++) thread.second(trickle);
    expect(thread.state.collected).toBe(0);
    thread.second(trickle);
    thread.second(trickle);
    expect(thread.state.collected).toBe(1);
  });

  test('a second burst is collected after it in turn', () => {
    const thread = fakeThread();
    thread.second(0.9);
    thread.second(0.9);
    for (let i = 0; i < QUIET_READINGS; i++) thread.second(0);
    thread.second(0.9);
    thread.second(0.9);
    for (let i = 0; i < QUIET_READINGS; i++) thread.second(0);
    expect(thread.state.collected).toBe(2);
  });

});
