import type { Db } from '../db/db';
import { createHostPacer } from './host-pacer';
import { claimDueDeliveries, recordOutcome } from './postbacks.repo';
import { attemptDelivery, type SendOptions } from './postback-sender';

export interface PostbackWorkerOptions extends SendOptions {
  /** How often the outbox is polled for due rows (other nodes' conversions, retries). */
  pollMs: number;
  batchSize: number;
  /** How long a claim lasts; a worker that dies mid-send frees its rows after this. */
  leaseMs: number;
  /** How long stop() lets in-flight attempts finish before cutting them short. */
  stopGraceMs?: number;
  /** Sends per second to one destination host from this node (POSTBACK_HOST_RATE). */
  hostRatePerSecond: number;
  /** Sends one host may get at once before the rate applies (POSTBACK_HOST_BURST). */
  hostBurst: number;
}

/** About four hours of retries: 2 s, 4 s, 8 s ... capped at an hour, 15 attempts in all. */
export const DEFAULT_WORKER_OPTIONS: Omit<PostbackWorkerOptions, 'allowPrivate' | 'userAgent' | 'hostRatePerSecond' | 'hostBurst'> = {
  pollMs: 1000,
  batchSize: 20,
  timeoutMs: 10_000,
  leaseMs: 15_000,
  maxAttempts: 15,
  baseDelayMs: 2000,
  maxDelayMs: 3_600_000,
};

/**
 * Sends queued postbacks. The outbox lives in the database, so stopping (or crashing) loses
 * nothing: unsent rows stay pending, and an attempt cut short by stop() does not count. A
 * delivery its host's pace holds back waits in the outbox the same way, uncounted.
 */
export interface PostbackWorker {
  start(): void;
  /** A conversion on this node queued deliveries: look now rather than at the next poll. */
  wake(): void;
  /** Claims and sends one batch; resolves to the number of deliveries attempted. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function createPostbackWorker(db: Db, options: PostbackWorkerOptions): PostbackWorker {
  let closing = false;
  const stopping = new AbortController();
  let loop: Promise<void> | undefined;
  let woken = false;
  let interruptIdle: (() => void) | undefined;
  let lastErrorLogged = 0;
  const pacer = createHostPacer({ ratePerSecond: options.hostRatePerSecond, burst: options.hostBurst });
  /** When the earliest delivery the pacer held back is due: the loop looks then, not a poll later. */
  let pacedUntil = Infinity;

  const runOnce = async () => {
    if (closing) return 0;
    const claimed = await claimDueDeliveries(db, options.batchSize, options.leaseMs);
    await Promise.all(
      claimed.map(async (delivery) => {
        const outcome = await attemptDelivery(delivery, options, stopping.signal, pacer);
        if (outcome.kind === 'released' && outcome.delayMs > 0) pacedUntil = Math.min(pacedUntil, Date.now() + outcome.delayMs);
        await recordOutcome(db, delivery, outcome);
      }),
    );
    return claimed.length;
  };

  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || closing) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        interruptIdle = undefined;
        resolve();
      }
      interruptIdle = done;
    });

  const run = async () => {
    while (!closing) {
      woken = false;
      let claimed = 0;
      try {
        claimed = await runOnce();
      } catch (error) {
        // The database may be briefly away; the rows wait in the outbox. Log at most once a minute.
        if (Date.now() - lastErrorLogged > 60_000) {
          lastErrorLogged = Date.now();
          console.error('postback worker:', error instanceof Error ? error.message : error);
        }
      }
      if (claimed < options.batchSize) {
        const untilPaced = pacedUntil - Date.now();
        pacedUntil = Infinity;
        await idle(Math.max(0, Math.min(options.pollMs, untilPaced)));
      }
    }
  };

  return {
    start() {
      loop ??= run();
    },
    wake() {
      woken = true;
      interruptIdle?.();
    },
    runOnce,
    /** In-flight attempts get a short grace to finish; the rest are cut short and released. */
    async stop() {
      closing = true;
      interruptIdle?.();
      let graceTimer: Timer | undefined;
      await Promise.race([loop, new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, options.stopGraceMs ?? 2000)))]);
      clearTimeout(graceTimer);
      stopping.abort();
      await loop;
    },
  };
}
