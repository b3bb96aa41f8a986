/**
 * The thread that owns the embedded store: PGlite, its WebAssembly heap and every statement run
 * on it, so no batch, copy or query of the store holds up the thread answering requests. Every
 * other thread reaches it through pglite.thread.ts. A transaction stays open here, its statements
 * sent one by one, until the asking thread ends it.
 */
import type { Db, Queryable } from './db';
import { openPglite } from './pglite';
import { collectWhenIdle } from '../shared/idle-collection';
import type { PgliteConnect, PgliteReply, PgliteRequest, PgliteThreadInit, SentError } from './pglite-thread.protocol';

declare const self: Worker;

/** One channel the store answers on: the Worker's own, or a port another thread was given. */
type Channel = Pick<MessagePort, 'postMessage' | 'onmessage'>;

const reply = (message: PgliteReply) => self.postMessage(message);

/** The database's own fields of an error (PGlite's DatabaseError), which callers branch on. */
const ERROR_FIELDS = ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity', 'position'] as const;

function sent(error: unknown): SentError {
  const fields: SentError['fields'] = {};
  for (const field of ERROR_FIELDS) {
    const value = (error as Record<string, unknown> | null)?.[field];
    if (typeof value === 'string' || typeof value === 'number') fields[field] = value;
  }
  return { message: error instanceof Error ? error.message : String(error), fields };
}

/** What a transaction the asking thread rolled back ends with, told apart from a failed commit. */
const ROLLED_BACK = new Error('rolled back');

/** An open transaction: its statements' target, and how it is ended. */
interface OpenTransaction {
  tx: Queryable;
  end(commit: boolean): Promise<void>;
}

/** Answers every channel's statements on the one store; returns how a channel is served. */
function serve(db: Db): (channel: Channel, owner: boolean) => void {
  const transactions = new Map<number, OpenTransaction>();
  const listeners = new Map<number, () => Promise<void>>();
  let nextNumber = 1;
  const target = (tx: number | undefined): Queryable => {
    if (tx === undefined) return db;
    const open = transactions.get(tx);
    if (!open) throw new Error(`transaction ${tx} is not open`);
    return open.tx;
  };
  /** Opens a transaction that stays open, its statements sent one by one, until `end` decides it. */
  const begin = () =>
    new Promise<number>((opened, failedToOpen) => {
      const number = nextNumber++;
      let decide: (commit: boolean) => void = () => {};
      const decided = new Promise<boolean>((resolve) => (decide = resolve));
      const outcome: Promise<void> = db.transaction(async (tx) => {
        transactions.set(number, {
          tx,
          end(commit) {
            decide(commit);
            return outcome;
          },
        });
        opened(number);
        if (!(await decided)) throw ROLLED_BACK;
      });
      outcome.then(
        () => transactions.delete(number),
        (error: unknown) => {
          if (!transactions.delete(number)) failedToOpen(error);
        },
      );
    });
  const run = async (request: PgliteRequest, channel: Channel, owner: boolean): Promise<unknown> => {
    switch (request.kind) {
      case 'query':
        return target(request.tx).query(request.text, request.params);
      case 'exec':
        return target(request.tx).exec(request.script);
      case 'begin':
        return begin();
      case 'end': {
        const open = transactions.get(request.tx);
        if (!open) throw new Error(`transaction ${request.tx} is not open`);
        // A rollback asked for is not an error to report; a commit that failed is.
        return open.end(request.commit).catch((error: unknown) => {
          if (error !== ROLLED_BACK) throw error;
        });
      }
      case 'bulkInsert':
        return db.bulkInsert(request.table, request.columns, request.rows, request.suffix);
      case 'copyFrom':
        return db.copyFrom(request.table, request.columns, request.text);
      case 'syncCommits':
        return db.syncCommits();
      case 'listen': {
        const listener = nextNumber++;
        listeners.set(listener, await db.listen(request.channel, (payload) => channel.postMessage({ kind: 'notification', listener, payload })));
        return listener;
      }
      case 'unlisten': {
        const unlisten = listeners.get(request.listener);
        listeners.delete(request.listener);
        return unlisten?.();
      }
      case 'notify':
        return db.notify(request.channel, request.payload);
      case 'close':
        // Only the thread that opened the store closes it; another channel's close is its own end.
        return owner ? db.close() : undefined;
    }
  };
  const answer = (channel: Channel, owner: boolean) => {
    channel.onmessage = (event) => {
      const request = event.data as PgliteRequest | PgliteConnect;
      if (request.kind === 'connect') {
        if (owner) answer(request.port, false);
        return;
      }
      run(request, channel, owner).then(
        (value) => channel.postMessage({ kind: 'done', id: request.id, value: value ?? null }),
        (error: unknown) => channel.postMessage({ kind: 'error', id: request.id, error: sent(error) }),
      );
    };
  };
  return answer;
}

self.onmessage = (event: MessageEvent<PgliteThreadInit>) => {
  const { dataDir, sharedBuffersMb } = event.data;
  openPglite(dataDir, { sharedBuffersMb }).then(
    (db) => {
      serve(db)(self as unknown as Channel, true);
      reply({ kind: 'ready' });
      collectWhenIdle();
    },
    (error: unknown) => reply({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
  );
};
