import type { Mirror, MirrorStopOptions } from './mirror';
import type { MirrorReply, MirrorRequest, MirrorWorkerInit } from './mirror.protocol';

export interface MirrorThreadOptions extends Omit<MirrorWorkerInit, 'busy'> {
  /** Asked a few times a second; the answer is passed to the thread when it changes. */
  busy?: () => boolean;
  log?: (message: string) => void;
}

/** How often the main thread tells the mirror thread whether ingest has a backlog. */
const BUSY_POLL_MS = 200;
/**
 * How long stop() waits for the thread: its final catch-up is bounded at 5 s and closing its
 * connection at 5 s more. A thread that has not answered by then is ended anyway; what it had
 * not copied is copied at the next start, from the cursor DuckDB keeps.
 */
const STOP_WAIT_MS = 15_000;

type Question = Extract<MirrorRequest, { id: number }> extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/** The main thread's end of the conversation with the mirror thread. */
interface Channel {
  /** Resolves when the thread is ready; rejects if it fails or exits first. */
  ready: Promise<void>;
  /** Sends a request and resolves to the thread's answer to it. */
  ask<T>(request: Question): Promise<T>;
}

/**
 * Routes the thread's replies: each answer to the request with its id, log lines to `log`. A
 * thread that fails or exits fails every request still waiting, so no caller waits forever.
 */
function listen(worker: Worker, log: (message: string) => void): Channel {
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let exited = false;

  const ready = new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<MirrorReply>) => {
      const message = event.data;
      if (message.kind === 'ready') resolve();
      else if (message.kind === 'failed') reject(new Error(message.message));
      else if (message.kind === 'log') log(message.message);
      else {
        const request = waiting.get(message.id);
        waiting.delete(message.id);
        if (message.ok) request?.resolve(message.value);
        else request?.reject(new Error(message.message));
      }
    };
    worker.addEventListener('error', (event) => {
      const error = new Error(`analytics mirror thread failed: ${event.message}`);
      reject(error);
      for (const request of waiting.values()) request.reject(error);
      waiting.clear();
    });
    worker.addEventListener('close', () => {
      exited = true;
      const error = new Error('analytics mirror thread exited');
      reject(error);
      for (const request of waiting.values()) request.reject(error);
      waiting.clear();
    });
  });

  return {
    ready,
    ask<T>(request: Question): Promise<T> {
      if (exited) return Promise.reject(new Error('analytics mirror thread exited'));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
        worker.postMessage({ ...request, id } as MirrorRequest);
      });
    },
  };
}

/**
 * The mirror on a thread of its own (mirror.worker.ts), behind the same Mirror interface, used on
 * Postgres and on the embedded store's own thread; a store inside the main thread's memory keeps
 * the mirror in-process.
 */
export async function createMirrorThread({ busy, log = console.error, ...init }: MirrorThreadOptions): Promise<Mirror> {
  const worker = new Worker(new URL('./mirror.worker.ts', import.meta.url).href);
  const { ready, ask } = listen(worker, log);
  let stopped = false;

  let lastBusy = busy?.() ?? false;
  // The store's port moves to the thread: it is that thread's alone from here.
  worker.postMessage({ ...init, busy: lastBusy } satisfies MirrorWorkerInit, init.storePort ? [init.storePort] : []);
  try {
    await ready;
  } catch (error) {
    worker.terminate();
    throw error;
  }

  const busyTimer = busy
    ? setInterval(() => {
        const now = busy();
        if (now !== lastBusy) worker.postMessage({ kind: 'busy', busy: (lastBusy = now) } satisfies MirrorRequest);
      }, BUSY_POLL_MS)
    : undefined;
  busyTimer?.unref?.();
  // The thread alone never keeps the process alive; stop() ends it.
  worker.unref();

  return {
    start() {
      // The thread starts copying as soon as it is ready.
    },
    catchUp() {
      if (stopped) return Promise.reject(new Error('analytics mirror is stopped'));
      return ask<number>({ kind: 'catchUp' });
    },
    query<T>(sql: string, params: readonly unknown[] = []) {
      if (stopped) return Promise.reject(new Error('analytics mirror is stopped'));
      return ask<T[]>({ kind: 'query', sql, params });
    },
    async stop({ budgetMs }: MirrorStopOptions = {}) {
      if (stopped) return;
      stopped = true;
      clearInterval(busyTimer);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${STOP_WAIT_MS / 1000} s`)), STOP_WAIT_MS);
      });
      try {
        await Promise.race([ask({ kind: 'stop', budgetMs }), timeout]);
      } catch (error) {
        log(`analytics mirror: stop failed: ${error instanceof Error ? error.message : error}`);
      } finally {
        clearTimeout(timer);
      }
      worker.terminate();
    },
  };
}
