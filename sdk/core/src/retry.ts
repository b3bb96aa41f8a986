import { backoffDelay, type RetryPolicy } from './backoff';
import type { Clock, Waiter } from './clock';
import type { Outcome } from './transport';

export interface RetryDeps {
  clock: Clock;
  waiter: Waiter;
  random: () => number;
  /** Checked before each retry: a withdrawn consent ends the attempts. */
  stopped: () => boolean;
  /** Told of a 429's Retry-After, so no request of the SDK goes out before it ends. */
  holdUntil: (time: number) => void;
}

/**
 * Sends until an answer that is not worth retrying, the policy's attempts are spent, or the
 * SDK is stopped; the last outcome is returned either way.
 */
export async function sendWithRetry(send: () => Promise<Outcome>, policy: RetryPolicy, deps: RetryDeps): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await send();
    if (outcome.kind !== 'retry') return outcome;
    if (outcome.retryAfterMs !== undefined) deps.holdUntil(deps.clock.now() + outcome.retryAfterMs);
    if (attempt >= policy.maxAttempts || deps.stopped()) return outcome;
    await deps.waiter.sleep(backoffDelay(attempt, policy, deps.random));
    if (deps.stopped()) return outcome;
  }
}
