/**
 * The answers of one event-loop turn, sent together at the end of the turn or once `max` wait:
 * sent one by one, each would wake the client's side of its connection on its own. What an answer
 * says is decided, and its click journaled, before it waits (docs/tracking.md, "Answers sent together").
 */
export const ANSWER_BATCH_MAX = 32;

type Answer = Response | Promise<Response>;

export function answerBatch(max = ANSWER_BATCH_MAX, atEndOfTurn: (send: () => void) => void = setImmediate) {
  let answers: Response[] = [];
  let senders: ((answer: Response) => void)[] = [];
  let scheduled = false;

  const sendAll = () => {
    const ready = answers;
    const send = senders;
    answers = [];
    senders = [];
    for (let i = 0; i < ready.length; i++) send[i]!(ready[i]!);
  };

  const endOfTurn = () => {
    scheduled = false;
    sendAll();
  };

  /** A finished answer joins the batch; an answer still waiting (a link lookup) goes out when it is ready. */
  return (answer: Answer): Answer => {
    if (answer instanceof Promise) return answer;
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
