import { errorMessage } from '../../shared/error-message';

/** The longest interval rounds wait for `busy` to clear, unless told otherwise. */
export const MAX_DEFERRAL_MS = 30_000;

export interface RoundTimerOptions {
  /** Milliseconds between rounds; 0 or less never starts. */
  intervalMs: number;
  /** True while the node's ingest has a backlog: rounds wait for it, for at most maxDeferralMs. */
  busy?: () => boolean;
  maxDeferralMs?: number;
  log: (message: string, error?: unknown) => void;
  /** Queues one round; `more()` is asked between its batches. */
  enqueue(more: () => boolean): Promise<number>;
}

/** The interval rounds of a mirror: deferred while the node is busy, ended by halt(). */
export interface RoundTimer {
  /** The first round runs at once; later calls are no-ops. */
  start(): void;
  /** No round is scheduled again, and the one under way ends after its current batches. */
  halt(): void;
}

export function createRoundTimer(options: RoundTimerOptions): RoundTimer {
  const { intervalMs, log, enqueue } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let halted = false;
  let deferredSince: number | undefined;
  let lastFailure: string | undefined;

  function schedule() {
    if (halted) return;
    timer = setTimeout(tick, intervalMs);
    // The interval alone never keeps the process alive.
    timer.unref?.();
  }

  async function copy(busy: () => boolean) {
    try {
      // An interval round gives way as soon as a burst starts; catchUp() and a round that waited
      // the longest deferral run to the end, so the mirror still catches up under endless load.
      // Every round ends at a halt; the stop's own last round keeps to the stop's budget.
      await enqueue(busy() ? () => !halted : () => !halted && !busy());
      if (lastFailure !== undefined) log('analytics mirror: recovered');
      lastFailure = undefined;
    } catch (error) {
      // Logged once per distinct failure, not every round, while Postgres is away.
      const message = errorMessage(error);
      if (message !== lastFailure) log('analytics mirror: round failed; retrying', error);
      lastFailure = message;
    }
  }

  async function tick() {
    timer = undefined;
    const now = Date.now();
    const busy = options.busy ?? (() => false);
    const maxDeferralMs = options.maxDeferralMs ?? MAX_DEFERRAL_MS;
    const deferring = busy() && now - (deferredSince ??= now) < maxDeferralMs;
    if (!deferring) {
      deferredSince = undefined;
      await copy(busy);
    }
    schedule();
  }

  return {
    start() {
      if (started || halted || intervalMs <= 0) return;
      started = true;
      void tick();
    },
    halt() {
      halted = true;
      if (timer) clearTimeout(timer);
    },
  };
}
