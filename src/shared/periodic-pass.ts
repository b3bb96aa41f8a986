/**
 * A pass over the database repeated every `intervalMs` (the late conversion matcher, pending
 * beacons): one run at a time, the next one `intervalMs` after the last ended. A failing run is
 * logged at most once a minute under `name` and tried again on the next tick.
 */
export interface PeriodicPass<T> {
  start(): void;
  /** One run now, outside the timer (tests, and nodes built without workers). */
  runOnce(): Promise<T>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function periodicPass<T>(name: string, intervalMs: number, run: () => Promise<T>): PeriodicPass<T> {
  let timer: Timer | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  let lastErrorLogged = 0;
  const tick = () => {
    if (stopped) return;
    running = run()
      .catch((error) => {
        if (Date.now() - lastErrorLogged > 60_000) {
          lastErrorLogged = Date.now();
          console.error(`${name}:`, error instanceof Error ? error.message : error);
        }
      })
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  return {
    start() {
      if (timer === undefined && running === undefined && !stopped) timer = setTimeout(tick, intervalMs);
    },
    runOnce: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
