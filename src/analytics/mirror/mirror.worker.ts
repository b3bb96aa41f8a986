/**
 * The mirror thread: its own way to the store (a Postgres connection, or a port to the embedded
 * store's thread), its own DuckDB, its own event loop. Reading rows back from the store and
 * appending them to DuckDB is synchronous work that would otherwise hold up the requests the main
 * thread is answering. Started by mirror.thread.ts.
 */
import { openThreadStore } from '../../db/thread-store';
import { errorMessage } from '../../shared/error-message';
import { collectWhenIdle } from '../../shared/idle-collection';
import { createMirror, type Mirror } from './mirror';
import type { MirrorReply, MirrorRequest, MirrorWorkerInit } from './mirror.protocol';

declare const self: Worker;

const reply = (message: MirrorReply) => self.postMessage(message);

let mirror: Mirror | undefined;
let busy = false;
let stopping: Promise<void> | undefined;

async function start(init: MirrorWorkerInit) {
  busy = init.busy;
  // One connection: a round reads one batch at a time.
  const db = openThreadStore(init, 1, 'mirror');
  try {
    mirror = await createMirror({
      db,
      path: init.path,
      intervalMs: init.intervalMs,
      tables: init.tables,
      batchSize: init.batchSize,
      memoryMb: init.memoryMb,
      threads: init.threads,
      busy: () => busy,
      log: (message, error) => reply({ kind: 'log', message: error === undefined ? message : `${message}: ${errorMessage(error)}` }),
    });
  } catch (error) {
    await db.close();
    reply({ kind: 'failed', message: errorMessage(error) });
    return;
  }
  const running = mirror;
  const stop = async (budgetMs: number | undefined) => {
    await running.stop({ budgetMs });
    await db.close();
  };
  self.onmessage = (event: MessageEvent<MirrorRequest>) => {
    const request = event.data;
    if (request.kind === 'busy') {
      busy = request.busy;
      return;
    }
    const work: Promise<unknown> =
      request.kind === 'catchUp' ? running.catchUp() : request.kind === 'query' ? running.query(request.sql, request.params) : (stopping ??= stop(request.budgetMs));
    work.then(
      (value) => reply({ kind: 'result', id: request.id, ok: true, value: request.kind === 'stop' ? null : value }),
      (error) => reply({ kind: 'result', id: request.id, ok: false, message: errorMessage(error) }),
    );
  };
  running.start();
  reply({ kind: 'ready' });
  collectWhenIdle();
}

self.onmessage = (event: MessageEvent<MirrorWorkerInit>) => {
  void start(event.data);
};
