/**
 * The answers of one event-loop turn, sent together at the end of the turn or once `max` wait:
 * sent one by one, each would wake the client's side of its connection on its own. What an answer
 * says is decided before it waits (docs/tracking.md, "Answers sent together").
 *
 * The clicks those answers journal are staged (pipeline/journal/staging.ts): held in memory and
 * written in one write just before the batch goes out, instead of one write each. If that write
 * fails, no answer of the batch says its click was accepted: each becomes `refused`.
 */
import type { StagedAppends } from '../pipeline/journal/staging';

export const ANSWER_BATCH_MAX = 32;

type Answer = Response | Promise<Response>;

export interface AnswerBatchOptions {
  max?: number;
  atEndOfTurn?: (send: () => void) => void;
  /** The answer that stands in for one whose click could not be written. */
  refused: () => Response;
}

export function answerBatch(journal: StagedAppends, options: AnswerBatchOptions) {
  const max = options.max ?? ANSWER_BATCH_MAX;
  const atEndOfTurn = options.atEndOfTurn ?? setImmediate;
  let answers: Response[] = [];
  let senders: ((answer: Response) => void)[] = [];
  let scheduled = false;
  /** stagedLosses() when the batch's first answer began: any loss since was of this batch's clicks. */
  let lossesBefore = 0;

  const sendAll = () => {
    const ready = answers;
    const send = senders;
    answers = [];
    senders = [];
    journal.writeStaged();
    const lost = journal.stagedLosses() !== lossesBefore;
    for (let i = 0; i < ready.length; i++) send[i]!(lost ? options.refused() : ready[i]!);
  };

  const endOfTurn = () => {
    scheduled = false;
    sendAll();
  };

  /**
   * Runs a handler with its journal appends staged. A finished answer joins the batch; an answer
   * still waiting (a link lookup) journals outside the batch, and goes out when it is ready.
   */
  return (handle: () => Answer): Answer => {
    const losses = journal.stagedLosses();
    const answer = journal.stageWhile(handle);
    if (answer instanceof Promise) {
      // Whatever was staged goes out now: this answer may be sent before the turn ends.
      journal.writeStaged();
      if (journal.stagedLosses() !== losses) return answer.then(options.refused, options.refused);
      return answer;
    }
    if (answers.length === 0) lossesBefore = losses;
    return new Promise<Response>((send) => {
      answers.push(answer);
      senders.push(send);
      if (answers.length >= max) sendAll();
      else if (!scheduled) {
        scheduled = true;
        atEndOfTurn(endOfTurn);
      }
    });
  };
}
