import type { Clock } from '../../src/clock';

/** Lets pending promise chains (fake fetches, response bodies) run to their next real wait. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

interface Timer {
  id: number;
  at: number;
  run: () => void;
}

/** A clock that moves only when told; timers run in time order, promises settling in between. */
export class FakeClock implements Clock {
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(public time = Date.UTC(2026, 8, 2, 12, 0, 0)) {}

  now(): number {
    return this.time;
  }

  setTimeout(run: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.time + Math.max(0, ms), run };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  /** Moves `ms` forward, running every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.time = due.at;
      due.run();
    }
    this.time = end;
    await settle();
  }
}

