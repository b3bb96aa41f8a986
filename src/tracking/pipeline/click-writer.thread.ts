import type { ClickWriter } from './click-writer';
import type { ClickWriterInit, ClickWriterReply, ClickWriterRequest } from './click-writer.protocol';

/** As the thread is started: a port to the embedded store is made anew for each thread, as it starts. */
export type ClickWriterThreadInit = Omit<ClickWriterInit, 'storePort'> & { storePort?: () => MessagePort };

/** How long close() waits for the thread to end its connections before ending the thread. */
const CLOSE_WAIT_MS = 10_000;
/**
 * A write unanswered this long means the thread or its driver is wedged (far longer than any
 * healthy batch takes): the thread is ended and the next batch starts a new one with new connections.
 */
export const STALLED_WRITE_MS = 60_000;

interface Pending {
  resolve(): void;
  reject(error: Error): void;
  sentAt: number;
}

/** The running thread, with the requests it holds: a thread's end fails its own requests only. */
interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * The click writer on a thread of its own with its own way to the store (click-writer.worker.ts).
 * A thread that dies fails the batches it held (the pipeline keeps them journaled and retries) and
 * the next batch starts a new one.
 */
export function createClickWriterThread(
  init: ClickWriterThreadInit,
  options: { onSpawn?: (worker: Worker) => void; stalledWriteMs?: number } = {},
): ClickWriter {
  const stalledWriteMs = options.stalledWriteMs ?? STALLED_WRITE_MS;
  let thread: Promise<Thread> | null = null;
  let nextId = 1;
  let closed = false;

  const spawn = (): Promise<Thread> => {
    const started: Promise<Thread> = startThread(init, { stalledWriteMs, onSpawn: options.onSpawn }, () => {
      if (thread === started) thread = null;
    });
    started.catch(() => {}); // a failed start is reported to the batch that waited for it
    thread = started;
    return started;
  };

  type Request = ClickWriterRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;
  const send = async (request: Request, transfer: ArrayBuffer[] = []): Promise<void> => {
    const { worker, pending } = await (thread ?? spawn());
    const id = nextId++;
    return new Promise<void>((resolve, reject) => {
      pending.set(id, { resolve, reject, sentAt: performance.now() });
      worker.postMessage({ ...request, id } as ClickWriterRequest, transfer);
    });
  };

  return {
    write(lines, count, options = {}) {
      if (closed) return Promise.reject(new Error('click writer is closed'));
      // A copy whose buffer moves to the thread, which decodes it. Copied by the constructor, not
      // slice(): on a Buffer slice() is a view, and moving its buffer would detach the journal's own.
      const copy = new Uint8Array(lines);
      return send({ kind: 'write', lines: copy, count, sideBySide: options.sideBySide ?? true }, [copy.buffer as ArrayBuffer]);
    },
    prepare() {
      if (!closed && !thread) void spawn().catch(() => {}); // a failed start is retried by the first write
    },
    async close() {
      if (closed) return;
      closed = true;
      const running = thread;
      if (!running) return;
      const current = await running.catch(() => null);
      if (!current) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        send({ kind: 'close' }).catch(() => {}),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
      ]);
      clearTimeout(timer);
      current.worker.terminate();
    },
  };
}

/**
 * Starts a writer thread; resolves once it is ready. When it ends (it failed to start, exited,
 * crashed or stopped answering), `onEnd` is told first, then every request it held fails.
 */
function startThread(init: ClickWriterThreadInit, options: { stalledWriteMs: number; onSpawn?: (worker: Worker) => void }, onEnd: () => void): Promise<Thread> {
  const { stalledWriteMs } = options;
  return new Promise<Thread>((resolve, reject) => {
    const worker = new Worker(new URL('./click-writer.worker.ts', import.meta.url).href);
    const pending = new Map<number, Pending>();
    let watchdog: ReturnType<typeof setInterval> | undefined;
    const gone = (error: Error) => {
      clearInterval(watchdog);
      onEnd();
      reject(error);
      for (const request of pending.values()) request.reject(error);
      pending.clear();
    };
    worker.onmessage = (event: MessageEvent<ClickWriterReply>) => {
      const message = event.data;
      if (message.kind === 'ready') return resolve({ worker, pending });
      if (message.kind === 'failed') {
        worker.terminate();
        return gone(new Error(`click writer thread failed to start: ${message.message}`));
      }
      const request = pending.get(message.id);
      pending.delete(message.id);
      if (message.kind === 'done') request?.resolve();
      else request?.reject(Object.assign(new Error(message.message), { code: message.code }));
    };
    worker.addEventListener('error', (event) => gone(new Error(`click writer thread failed: ${event.message}`)));
    worker.addEventListener('close', () => gone(new Error('click writer thread exited')));
    watchdog = setInterval(() => {
      const oldest = Math.min(...Array.from(pending.values(), (request) => request.sentAt));
      if (performance.now() - oldest < stalledWriteMs) return;
      console.error(`click writer thread: a write unanswered for ${stalledWriteMs} ms; starting a new thread`);
      worker.terminate();
      gone(new Error('click writer thread stopped answering'));
    }, Math.min(5_000, stalledWriteMs / 4));
    watchdog.unref();
    // The thread alone never keeps the process alive; close() ends it.
    worker.unref();
    const { storePort, ...rest } = init;
    const port = storePort?.();
    worker.postMessage({ ...rest, storePort: port } satisfies ClickWriterInit, port ? [port] : []);
    options.onSpawn?.(worker);
  });
}
