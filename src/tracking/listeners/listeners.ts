import type { Config } from '../../config/config';
import type { ForwardTarget } from '../../http/forwarding';
import type { LinkChanges } from '../redirect/link-cache/link-changes';
import { worstWriterState, type WriterState } from '../pipeline/click-pipeline';
import { listenerDataDir } from './listener-journals';
import type { FromListener, ToListener } from './listener.protocol';

/**
 * Tracking listener threads: on Postgres a node answers GET /c and GET /i on TRACKING_THREADS
 * threads beside its main thread, all on one port (SO_REUSEPORT), each with its own caches, click
 * journal and writer. The main thread relays link changes, so a link write answers once every
 * thread has dropped the old link (docs/click-pipeline.md, "Listener threads").
 */
export interface TrackingListeners {
  readonly count: number;
  /** Records the threads journaled and have not written yet, as they last reported. */
  pending(): number;
  /** The least healthy of the threads' click writers, as they last reported. */
  writerState(): WriterState;
  /** Stops taking connections; resolves once the requests in flight are answered. */
  stopServing(): Promise<void>;
  /** Writes every journaled record to Postgres and ends the threads. */
  stop(): Promise<void>;
}

/** How long a thread may take to start (its journal is replayed first). */
const START_TIMEOUT_MS = 120_000;
/** A link write waits this long for a thread to drop the link; past it the write answers anyway (logged). */
const LINK_CHANGE_TIMEOUT_MS = 2_000;
/** A thread that died is started again after this long. */
const RESTART_DELAY_MS = 1_000;

interface Listener {
  index: number;
  worker: Worker | null;
  ready: boolean;
  pending: number;
  writer: WriterState;
  waits: Map<string, () => void>;
}

export interface TrackingListenersDeps {
  config: Config;
  linkChanges: Pick<LinkChanges, 'subscribe'>;
  forward: ForwardTarget;
  /** The thread's script; listener.worker.ts unless a test supervises a stand-in that speaks the same protocol. */
  workerUrl?: string;
}

export async function startTrackingListeners(deps: TrackingListenersDeps, count = deps.config.trackingThreads): Promise<TrackingListeners> {
  const listeners: Listener[] = Array.from({ length: count }, (_, index) => ({ index, worker: null, ready: false, pending: 0, writer: 'ok' as WriterState, waits: new Map() }));
  let stopping = false;
  let seq = 0;
  const start: ListenerStart = {
    workerUrl: deps.workerUrl ?? new URL('./listener.worker.ts', import.meta.url).href,
    config: deps.config,
    forward: deps.forward,
    stopping: () => stopping,
  };

  const unsubscribe = deps.linkChanges.subscribe(async (linkId) => {
    const applied = await Promise.all(
      listeners.filter((listener) => listener.ready).map((listener) => {
        const id = ++seq;
        return ask(listener, { kind: 'link-changed', seq: id, linkId }, `link:${id}`, LINK_CHANGE_TIMEOUT_MS);
      }),
    );
    if (applied.includes(false)) console.error(`tracking listeners: a thread did not confirm the change of link ${linkId} within ${LINK_CHANGE_TIMEOUT_MS} ms`);
  });

  /** Asks every thread to stop serving, or to stop; each answers with the same word, past tense. */
  const askAll = async (kind: 'stop-serving' | 'stop') => {
    stopping = true;
    await Promise.all(listeners.map((listener) => ask(listener, { kind }, kind === 'stop' ? 'stopped' : 'stopped-serving')));
  };
  const pending = () => listeners.reduce((sum, listener) => sum + listener.pending, 0);
  const writerState = () => worstWriterState(listeners.map((listener) => listener.writer));
  /** Writes the threads' journals out and ends them (also when some failed to start). */
  const stop = async () => {
    unsubscribe();
    await askAll('stop');
    for (const listener of listeners) listener.worker?.terminate();
  };

  try {
    await Promise.all(listeners.map((listener) => spawn(listener, start)));
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    count,
    pending,
    writerState,
    stopServing: () => askAll('stop-serving'),
    async stop() {
      await stop();
      if (pending() > 0) console.error(`tracking listeners: ${pending()} records stay in their journals for the next start`);
    },
  };
}

/** Posts a message and waits for the reply that `key` names (or the thread's end). */
function ask(listener: Listener, message: ToListener, key: string, timeoutMs?: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const worker = listener.worker;
    if (!worker) return resolve(false);
    let timer: ReturnType<typeof setTimeout> | undefined;
    listener.waits.set(key, () => {
      clearTimeout(timer);
      resolve(true);
    });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        listener.waits.delete(key);
        resolve(false);
      }, timeoutMs);
    }
    worker.postMessage(message);
  });
}

/** What starting a listener's thread takes; `stopping` is read when a thread dies, to start it again or not. */
interface ListenerStart {
  workerUrl: string;
  config: Config;
  forward: ForwardTarget;
  stopping: () => boolean;
}

/**
 * Starts the listener's thread; resolves once it serves. A thread that dies later is started
 * again after RESTART_DELAY_MS on the same journal, unless the node is stopping.
 */
function spawn(listener: Listener, start: ListenerStart): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const worker = new Worker(start.workerUrl);
    listener.worker = worker;
    listener.ready = false;
    let started = false;
    const timer = setTimeout(() => fail(new Error(`tracking listener ${listener.index} did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      worker.terminate();
      reject(error);
    };
    worker.onmessage = (event: MessageEvent<FromListener>) => {
      const message = event.data;
      if (message.kind === 'ready') {
        clearTimeout(timer);
        started = listener.ready = true;
        resolve();
      } else if (message.kind === 'failed') {
        fail(new Error(`tracking listener ${listener.index} failed to start: ${message.message}`));
      } else {
        heard(listener, message);
      }
    };
    worker.addEventListener('close', () => {
      const wasCurrent = listener.worker === worker;
      if (wasCurrent) {
        listener.worker = null;
        listener.ready = false;
      }
      // Whoever waits on this thread (a link change, a stop) is done with it.
      for (const wait of listener.waits.values()) wait();
      listener.waits.clear();
      if (!started) return fail(new Error(`tracking listener ${listener.index} exited while starting`));
      if (start.stopping() || !wasCurrent) return;
      // Its journal holds every click it answered; a new thread on the same directory writes them.
      console.error(`tracking listener ${listener.index} stopped unexpectedly; starting it again in ${RESTART_DELAY_MS} ms`);
      setTimeout(() => {
        if (!start.stopping()) spawn(listener, start).catch((error) => console.error(`tracking listener ${listener.index}:`, (error as Error).message));
      }, RESTART_DELAY_MS);
    });
    worker.postMessage({ kind: 'init', config: start.config, dataDir: listenerDataDir(start.config.dataDir, listener.index), forward: start.forward } satisfies ToListener);
  });
}

/** A message of a serving thread: its backlog, or the reply someone waits for. */
function heard(listener: Listener, message: Exclude<FromListener, { kind: 'ready' | 'failed' }>): void {
  if (message.kind === 'backlog') {
    listener.pending = message.pending;
    listener.writer = message.writer;
    return;
  }
  if (message.kind === 'stopped') listener.pending = message.pending;
  const key = message.kind === 'link-applied' ? `link:${message.seq}` : message.kind;
  const wait = listener.waits.get(key);
  listener.waits.delete(key);
  wait?.();
}
