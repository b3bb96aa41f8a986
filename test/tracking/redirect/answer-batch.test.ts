import { describe, expect, test } from 'bun:test';
import { openJournal } from '../../../src/tracking/pipeline/journal/journal';
import { answerBatch } from '../../../src/tracking/redirect/answer-batch';
import { tempDir } from '../../support/temp-dir';

/** A stand-in for the end of the event loop's turn, run by the test when it chooses. */
function manualTurn() {
  const queued: (() => void)[] = [];
  return {
    schedule: (send: () => void) => void queued.push(send),
    scheduled: () => queued.length,
    end: () => queued.splice(0).forEach((send) => send()),
  };
}

/** A journal stand-in that logs what the batch asks of it; `failNext` makes the next write of staged records fail. */
function loggingJournal() {
  const log: string[] = [];
  let losses = 0;
  let staged = 0;
  const journal = {
    log,
    failNext: false,
    stage: () => void staged++,
    stageWhile<R>(run: () => R): R {
      log.push('stage');
      return run();
    },
    writeStaged() {
      if (staged === 0) return;
      log.push(`write ${staged}`);
      staged = 0;
      if (journal.failNext) losses++;
      journal.failNext = false;
    },
    stagedLosses: () => losses,
  };
  return journal;
}

const REFUSED = () => new Response('refused', { status: 503 });

const answered = (promise: Promise<Response>) => {
  const state = { done: false, response: undefined as Response | undefined };
  void promise.then((response) => Object.assign(state, { done: true, response }));
  return state;
};

describe('answers sent together', () => {
  test('an answer waits for the end of the turn, then each goes out as it was given, in order', async () => {
    const turn = manualTurn();
    const batched = answerBatch(loggingJournal(), { max: 32, atEndOfTurn: turn.schedule, refused: REFUSED });
    const given = [new Response('a'), new Response('b', { status: 404 }), new Response('c')];
    const waiting = given.map((response) => answered(batched(() => response) as Promise<Response>));
    await Bun.sleep(0);
    expect(waiting.map((state) => state.done)).toEqual([false, false, false]);
    expect(turn.scheduled()).toBe(1);
    turn.end();
    await Bun.sleep(0);
    expect(waiting.map((state) => state.response)).toEqual(given);
  });

  test('a full batch goes out at once, and the rest of the turn at its end', async () => {
    const turn = manualTurn();
    const batched = answerBatch(loggingJournal(), { max: 3, atEndOfTurn: turn.schedule, refused: REFUSED });
    const waiting = Array.from({ length: 5 }, (_, i) => answered(batched(() => new Response(String(i))) as Promise<Response>));
    await Bun.sleep(0);
    expect(waiting.map((state) => state.done)).toEqual([true, true, true, false, false]);
    expect(turn.scheduled()).toBe(1);
    turn.end();
    await Bun.sleep(0);
    expect(await Promise.all(waiting.map((state) => state.response!.text()))).toEqual(['0', '1', '2', '3', '4']);
    // The next turn schedules its own end again.
    const next = answered(batched(() => new Response('next')) as Promise<Response>);
    expect(turn.scheduled()).toBe(1);
    turn.end();
    await Bun.sleep(0);
    expect(next.done).toBe(true);
  });

  test('an answer still waiting for a lookup is passed through, not held in the batch', async () => {
    const turn = manualTurn();
    const batched = answerBatch(loggingJournal(), { max: 32, atEndOfTurn: turn.schedule, refused: REFUSED });
    const lookup = Promise.resolve(new Response('looked up'));
    expect(batched(() => lookup)).toBe(lookup);
    expect(turn.scheduled()).toBe(0);
  });

  test('on the real event loop, a batch is sent after the turn that built it', async () => {
    const batched = answerBatch(loggingJournal(), { refused: REFUSED });
    const first = answered(batched(() => new Response('1')) as Promise<Response>);
    const second = answered(batched(() => new Response('2')) as Promise<Response>);
    await Promise.resolve();
    expect([first.done, second.done]).toEqual([false, false]);
    await new Promise((resolve) => setImmediate(resolve));
    await Bun.sleep(0);
    expect([first.done, second.done]).toEqual([true, true]);
  });

  test('the clicks a batch staged are written in one write before any of its answers goes out', async () => {
    const turn = manualTurn();
    const journal = loggingJournal();
    const batched = answerBatch(journal, { max: 32, atEndOfTurn: turn.schedule, refused: REFUSED });
    const waiting = [1, 2, 3].map((n) =>
      answered(
        batched(() => {
          journal.stage();
          return new Response(String(n));
        }) as Promise<Response>,
      ),
    );
    expect(journal.log).toEqual(['stage', 'stage', 'stage']);
    turn.end();
    await Bun.sleep(0);
    expect(journal.log).toEqual(['stage', 'stage', 'stage', 'write 3']);
    expect(await Promise.all(waiting.map((state) => state.response!.text()))).toEqual(['1', '2', '3']);
  });

  test('when the write of its clicks fails, every answer of that batch is refused, and the next batch is not', async () => {
    const turn = manualTurn();
    const journal = loggingJournal();
    const batched = answerBatch(journal, { max: 32, atEndOfTurn: turn.schedule, refused: REFUSED });
    const click = (n: number) => () => (journal.stage(), new Response(String(n), { status: 302 }));
    const lost = [1, 2].map((n) => answered(batched(click(n)) as Promise<Response>));
    journal.failNext = true;
    turn.end();
    await Bun.sleep(0);
    expect(lost.map((state) => state.response!.status)).toEqual([503, 503]);
    const next = answered(batched(click(3)) as Promise<Response>);
    turn.end();
    await Bun.sleep(0);
    expect(next.response!.status).toBe(302);
  });

  test('an answer still waiting has what was staged written at once; if that write fails, it and the open batch are refused', async () => {
    const turn = manualTurn();
    const journal = loggingJournal();
    const batched = answerBatch(journal, { max: 32, atEndOfTurn: turn.schedule, refused: REFUSED });
    const inBatch = answered(batched(() => (journal.stage(), new Response('sync', { status: 302 }))) as Promise<Response>);
    journal.failNext = true;
    const waitingAnswer = batched(() => (journal.stage(), Promise.resolve(new Response('async', { status: 302 }))));
    expect(journal.log).toEqual(['stage', 'stage', 'write 2']);
    expect((await waitingAnswer).status).toBe(503);
    turn.end();
    await Bun.sleep(0);
    expect(inBatch.response!.status).toBe(503);
  });

  test('with the real journal: a turn\'s clicks reach the file together, before their answers', async () => {
    const turn = manualTurn();
    const journal = openJournal<{ n: number }>(tempDir('answer-batch'));
    const batched = answerBatch(journal, { max: 32, atEndOfTurn: turn.schedule, refused: REFUSED });
    const waiting = [1, 2, 3].map((n) => answered(batched(() => (journal.append({ n }), new Response(String(n)))) as Promise<Response>));
    expect(journal.appended()).toBe(0);
    turn.end();
    expect(journal.appended()).toBe(3);
    await Bun.sleep(0);
    expect(waiting.every((state) => state.done)).toBe(true);
    expect(journal.peek(10)!.records).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await journal.close();
  });
});
