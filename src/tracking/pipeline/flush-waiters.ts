/**
 * The callers of flush() still waiting: each for the records journaled before its call to be
 * committed. They are settled after every commit, all rejected when a write fails or at a stop.
 */
export class FlushWaiters {
  private readonly waiters: { target: number; resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly committed: () => number) {}

  /** Resolves once `target` records are committed (a journal.appended() reading). */
  add(target: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.push({ target, resolve, reject }));
  }

  waiting(): boolean {
    return this.waiters.length > 0;
  }

  /** Resolves the waiters whose records are committed; with an error, rejects every waiter. */
  settle(error?: unknown): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i]!;
      if (error !== undefined) waiter.reject(error);
      else if (this.committed() >= waiter.target) waiter.resolve();
      else continue;
      this.waiters.splice(i, 1);
    }
  }
}
