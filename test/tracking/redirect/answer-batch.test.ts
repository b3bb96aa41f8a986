import { describe, expect, test } from 'bun:test';
import { answerBatch } from '../../../src/tracking/redirect/answer-batch';

/** A stand-in for the end of the event loop's turn, run by the test when it chooses. */
function manualTurn() {
  const queued: (() => void)[] = [];
  return {
    schedule: (send: () => void) => void queued.push(send),
    scheduled: () => queued.length,
    end: () => queued.splice(0).forEach((send) => send()),
  };
}

const answered = (promise: Promise<Response>) => {
  const state = { done: false, response: undefined as Response | undefined };
  void promise.then((response) => Object.assign(state, { done: true, response }));
  return state;
};

describe('answers sent together', () => {
  test('an answer waits for the end of the turn, then each goes out as it was given, in order', async () => {
    const turn = manualTurn();
    const batched = answerBatch(32, turn.schedule);
    const given = [new Response('a'), new Response('b', { status: 404 }), new Response('c')];
    const waiting = given.map((response) => answered(batched(response) as Promise<Response>));
    await Bun.sleep(0);
    expect(waiting.map((state) => state.done)).toEqual([false, false, false]);
    expect(turn.scheduled()).toBe(1);
    turn.end();
    await Bun.sleep(0);
    expect(waiting.map((state) => state.response)).toEqual(given);
  });

  test('a full batch goes out at once, and the rest of the turn at its end', async () => {
    const turn = manualTurn();
    const batched = answerBatch(3, turn.schedule);
    const waiting = Array.from({ length: 5 }, (_, i) => answered(batched(new Response(String(i))) as Promise<Response>));
    await Bun.sleep(0);
    expect(waiting.map((state) => state.done)).toEqual([true, true, true, false, false]);
    expect(turn.scheduled()).toBe(1);
    turn.end();
    await Bun.sleep(0);
    expect(await Promise.all(waiting.map((state) => state.response!.text()))).toEqual(['0', '1', '2', '3', '4']);
    // The next turn schedules its own end again.
    const next = answered(batched(new Response('next')) as Promise<Response>);
    expect(turn.scheduled()).toBe(1);
    turn.end();
    await Bun.sleep(0);
    expect(next.done).toBe(true);
  });

  test('an answer still waiting for a lookup is passed through, not held in the batch', async () => {
    const turn = manualTurn();
    const batched = answerBatch(32, turn.schedule);
    const lookup = Promise.resolve(new Response('looked up'));
    expect(batched(lookup)).toBe(lookup);
    expect(turn.scheduled()).toBe(0);
  });

  test('on the real event loop, a batch is sent after the turn that built it', async () => {
    const batched = answerBatch();
    const first = answered(batched(new Response('1')) as Promise<Response>);
    const second = answered(batched(new Response('2')) as Promise<Response>);
    await Promise.resolve();
    expect([first.done, second.done]).toEqual([false, false]);
    await new Promise((resolve) => setImmediate(resolve));
    await Bun.sleep(0);
    expect([first.done, second.done]).toEqual([true, true]);
  });
});
