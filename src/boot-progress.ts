/**
 * The lines a start prints while it prepares, each with the seconds since the process began, so
 * a first start (a new store, migrations, the IP data) never looks hung (docs/operations.md,
 * "First start").
 */
export interface BootProgress {
  (line: string): void;
  /** Prints `line` every `everyMs` until `work` settles: a step that takes seconds shows it is alive. */
  during<T>(work: Promise<T>, line: string, everyMs?: number): Promise<T>;
}

const STILL_WORKING_MS = 3_000;

export function bootProgress(write: (line: string) => void = console.log): BootProgress {
  const progress = (line: string) => write(`[start ${(performance.now() / 1000).toFixed(1)}s] ${line}`);
  return Object.assign(progress, {
    async during<T>(work: Promise<T>, line: string, everyMs = STILL_WORKING_MS): Promise<T> {
      const timer = setInterval(() => progress(line), everyMs);
      try {
        return await work;
      } finally {
        clearInterval(timer);
      }
    },
  });
}
