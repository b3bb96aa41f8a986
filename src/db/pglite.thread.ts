import type { Db, Queryable } from './db';
import { inMemoryAdvisoryLocks } from './in-memory-advisory-locks';
import type { PgliteOptions } from './pglite';
import type { PgliteConnect, PgliteReply, PgliteRequest, PgliteThreadInit, SentError } from './pglite-thread.protocol';

type Ask = PgliteRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

export interface PgliteThreadOptions extends Pick<PgliteOptions, 'sharedBuffersMb'> {
  /**
   * The store's thread ended without being closed. Default: the node stops with exit code 1, as
   * it would had PGlite failed in its own thread: whatever a write had not confirmed is still
   * in the journal and is replayed at the next start, so nothing is lost silently.
   */
  onCrash?: (error: Error) => void;
  /** Given the store's thread as it starts (tests end it, as a crash would). */
  onSpawn?: (worker: Worker) => void;
}

const crashTheNode = (error: Error) => {
  console.error(`embedded store: ${error.message}; stopping`);
  process.exit(1);
};

/**
 * Runs `drain` soon after the event that called the returned function, outside that event's
 * dispatch. Bun (1.4.x, oven-sh/bun#37189) loses the wakeup of a Worker's next message while a
 * continuation run from that Worker's message dispatch waits synchronously on the event loop
 * (`expect(promise).rejects` does): settled from the handler, an answer awaited so stalls. An
 * immediate is the quick way out; a nested wait does not run immediates promptly, a 1 ms timer
 * covers it. Neither is cleared: `drain` finds nothing the second time.
 */
function outsideDispatch(drain: () => void): () => void {
  let immediateArmed = false;
  let timerArmed = false;
  return () => {
    if (!immediateArmed) {
      immediateArmed = true;
      setImmediate(() => {
        immediateArmed = false;
        drain();
      });
    }
    if (!timerArmed) {
      timerArmed = true;
      setTimeout(() => {
        timerArmed = false;
        drain();
      }, 1);
    }
  };
}

function received(error: SentError): Error {
  return Object.assign(new Error(error.message), error.fields);
}

/** Either end the client speaks through: the store's Worker, or a port to it. */
interface Endpoint {
  postMessage(message: PgliteRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<PgliteReply>) => void): void;
}

interface Client {
  db: Db;
  /** Feeds the client an event of its endpoint: an answer, or the end of the store's thread. */
  arrived(event: PgliteReply | Error): void;
}

/**
 * A Db whose statements are posted on `endpoint` and answered by pglite.worker.ts. `whenGone` is
 * told when the store's thread ends; `close` is what closing this Db does.
 */
function client(endpoint: Endpoint, hooks: { whenGone(error: Error): void; close(ask: <T>(request: Ask) => Promise<T>): Promise<void>; ready?(): void }): Client {
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const listeners = new Map<number, (payload: string) => void>();
  let nextId = 1;
  let gone: Error | undefined;
  const ask = <T>(request: Ask): Promise<T> => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      endpoint.postMessage({ ...request, id } as PgliteRequest);
    });
  };
  const end = (error: Error) => {
    if (gone) return;
    gone = error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
    hooks.whenGone(error);
  };
  const handle = (message: PgliteReply) => {
    if (message.kind === 'ready') hooks.ready?.();
    else if (message.kind === 'failed') end(new Error(message.message));
    else if (message.kind === 'notification') listeners.get(message.listener)?.(message.payload);
    else {
      const waiter = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.kind === 'done') waiter?.resolve(message.value);
      else waiter?.reject(received(message.error));
    }
  };
  // The thread's events in the order they came, handled outside their dispatch (outsideDispatch):
  // its last answers before it ended are handled before its end fails what is still waiting.
  const inbox: (PgliteReply | Error)[] = [];
  const handleInbox = outsideDispatch(() => {
    for (const event of inbox.splice(0)) {
      if (event instanceof Error) end(event);
      else handle(event);
    }
  });
  const arrived = (event: PgliteReply | Error) => {
    inbox.push(event);
    handleInbox();
  };
  endpoint.addEventListener('message', (event) => arrived(event.data));
  const inTransaction = (tx: number): Queryable => ({
    query: <T>(text: string, params: readonly unknown[] = []) => ask<T[]>({ kind: 'query', tx, text, params }),
    exec: (script) => ask<void>({ kind: 'exec', tx, script }),
  });
  const db: Db = {
    kind: 'pglite',
    query: <T>(text: string, params: readonly unknown[] = []) => ask<T[]>({ kind: 'query', text, params }),
    exec: (script) => ask<void>({ kind: 'exec', script }),
    async transaction(fn) {
      const tx = await ask<number>({ kind: 'begin' });
      let result;
      try {
        result = await fn(inTransaction(tx));
      } catch (error) {
        await ask({ kind: 'end', tx, commit: false }).catch(() => {});
        throw error;
      }
      await ask({ kind: 'end', tx, commit: true });
      return result;
    },
    bulkInsert: (table, columns, rows, suffix) => ask<number>({ kind: 'bulkInsert', table, columns, rows, suffix }),
    copyFrom: (table, columns, text) => ask<void>({ kind: 'copyFrom', table, columns, text }),
    syncCommits: () => ask<void>({ kind: 'syncCommits' }),
    async listen(channel, onPayload) {
      const listener = await ask<number>({ kind: 'listen', channel });
      listeners.set(listener, onPayload);
      return async () => {
        listeners.delete(listener);
        await ask({ kind: 'unlisten', listener });
      };
    },
    notify: (channel, payload) => ask<void>({ kind: 'notify', channel, payload }),
    tryAdvisoryLock: inMemoryAdvisoryLocks(),
    async close() {
      if (gone) return;
      await hooks.close(ask);
    },
  };
  return { db, arrived };
}

/**
 * The embedded store under `dataDir` (undefined: in memory), owned by a thread of its own
 * (pglite.worker.ts) behind the same Db as openPglite: the answering thread only posts statements
 * and reads answers. Statements run in the order sent; a transaction's run in the worker's open
 * transaction until it ends. `storeChannel()` gives another thread a way in (openPgliteOverPort).
 */
export function openPgliteThread(dataDir: string | undefined, options: PgliteThreadOptions = {}): Promise<Db> {
  const worker = new Worker(new URL('./pglite.worker.ts', import.meta.url).href);
  options.onSpawn?.(worker);
  const onCrash = options.onCrash ?? crashTheNode;
  return new Promise<Db>((resolveOpen, rejectOpen) => {
    let open = false;
    let closing = false;
    const { db, arrived } = client(worker, {
      ready() {
        open = true;
        resolveOpen({ ...db, storeChannel });
      },
      whenGone(error) {
        worker.terminate();
        if (!open) rejectOpen(error);
        else if (!closing) onCrash(error);
      },
      async close(ask) {
        closing = true;
        try {
          await ask({ kind: 'close' });
        } finally {
          worker.terminate();
        }
      },
    });
    const storeChannel = (): MessagePort => {
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ kind: 'connect', port: port1 } satisfies PgliteConnect, [port1]);
      return port2;
    };
    worker.addEventListener('error', (event) => arrived(new Error(`the embedded store's thread failed: ${event.message}`)));
    worker.addEventListener('close', () => arrived(new Error("the embedded store's thread exited")));
    const init: PgliteThreadInit = { kind: 'init', dataDir, sharedBuffersMb: options.sharedBuffersMb };
    worker.postMessage(init);
  });
}

/**
 * The embedded store reached from another thread, over a port its opener's `storeChannel()` gave.
 * Closing it closes the port, never the store; the store's end is the node's (openPgliteThread).
 */
export function openPgliteOverPort(port: MessagePort): Db {
  port.start();
  const { db } = client(port, {
    whenGone: () => port.close(),
    async close() {
      port.close();
    },
  });
  return db;
}
