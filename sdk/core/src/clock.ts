/// <reference path="./globals.d.ts" />
/** Time as the SDK sees it: injected so tests drive timers and backoff with a fake clock. */
export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle),
};

/**
 * Sleeps that a nudge ends early: a flush() call or the browser coming back online retries at
 * once instead of waiting out a backoff of up to a minute.
 */
export class Waiter {
  private readonly wakers = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.clock.clearTimeout(handle);
        this.wakers.delete(wake);
        resolve();
      };
      const handle = this.clock.setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  nudge(): void {
    for (const wake of [...this.wakers]) wake();
  }
}

/** A sleep no nudge shortens: what a server's Retry-After asks for. */
export function pause(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    clock.setTimeout(resolve, ms);
  });
}
