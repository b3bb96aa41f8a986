/**
 * The answers of one event-loop turn, sent together.
 *
 * Under load, one turn of the event loop reads many requests. Sent one by one, each answer
 * wakes the client's side of the connection on its own. On a loaded machine that wake-up is
 * most of a redirect's cost in the kernel. So each answer waits in a batch, and the whole batch
 * is sent at the end of the turn. The batch is also sent once it holds `max` answers, which
 * bounds the extra wait of the first answer when a turn reads a great many requests.
 *
 * A single request waits only one hop of the loop. What an answer says is decided, and its
 * click journaled, before it joins the batch (docs/tracking.md, "Answers sent together";
 * docs/performance.md, run 28).
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
