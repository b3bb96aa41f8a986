import type { Db, Queryable } from './db';
import { inMemoryAdvisoryLocks, type PgliteOptions } from './pglite';
import type { PgliteReply, PgliteRequest, PgliteThreadInit, SentError } from './pglite-thread.protocol';

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

/**
 * The embedded store under `dataDir` (undefined: in memory), owned by a thread of its own (pglite.worker.ts) behind the
 * same Db as openPglite: the answering thread only posts statements and reads answers. Statements
 * run in the order sent; a transaction's run in the worker's open transaction until it ends.
 */
export function openPgliteThread(dataDir: string | undefined, options: PgliteThreadOptions = {}): Promise<Db> {
  const worker = new Worker(new URL('./pglite.worker.ts', import.meta.url).href);
  options.onSpawn?.(worker);
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const listeners = new Map<number, (payload: string) => void>();
  let nextId = 1;
  let closing = false;
  let gone: Error | undefined;
  const onCrash = options.onCrash ?? crashTheNode;
  const ask = <T>(request: Ask): Promise<T> => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id } as PgliteRequest);
    });
  };
  return new Promise<Db>((resolveOpen, rejectOpen) => {
    let open = false;
    const end = (error: Error) => {
      if (gone) return;
      gone = error;
      for (const { reject } of waiting.values()) reject(error);
      waiting.clear();
      if (!open) rejectOpen(error);
      else if (!closing) onCrash(error);
    };
    const handle = (message: PgliteReply) => {
      if (message.kind === 'ready') {
        open = true;
        resolveOpen(db);
      } else if (message.kind === 'failed') {
        end(new Error(message.message));
        worker.terminate();
      } else if (message.kind === 'notification') {
        listeners.get(message.listener)?.(message.payload);
      } else {
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
    worker.addEventListener('error', (event) => arrived(new Error(`the embedded store's thread failed: ${event.message}`)));
    worker.addEventListener('close', () => arrived(new Error("the embedded store's thread exited")));
    worker.addEventListener('message', (event: MessageEvent<PgliteReply>) => arrived(event.data));
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
        closing = true;
        try {
          await ask({ kind: 'close' });
        } finally {
          worker.terminate();
        }
      },
    };
    const init: PgliteThreadInit = { kind: 'init', dataDir, sharedBuffersMb: options.sharedBuffersMb };
    worker.postMessage(init);
  });
}
