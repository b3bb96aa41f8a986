import type { WriterState } from '../pipeline/click-pipeline';
import type { Config } from '../../config/config';
import type { ForwardTarget } from '../../http/forwarding';

/**
 * Messages between a node's main thread (listeners.ts) and one tracking listener thread
 * (listener.worker.ts). Link changes carry a sequence number; the thread answers each with the
 * same number once its cache has dropped the link.
 */
export interface ListenerInit {
  kind: 'init';
  config: Config;
  /** This listener's own data directory: its click journal and set-aside file. */
  dataDir: string;
  forward: ForwardTarget;
}

export type ToListener =
  | ListenerInit
  | { kind: 'link-changed'; seq: number; linkId: string }
  /** Stop taking connections and finish the requests in flight. */
  | { kind: 'stop-serving' }
  /** Write every journaled record to Postgres, then close. */
  | { kind: 'stop' };

export type FromListener =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'link-applied'; seq: number }
  /** Records journaled and not yet in Postgres, and whether they reach it; sent when either changes. */
  | { kind: 'backlog'; pending: number; writer: WriterState }
  | { kind: 'stopped-serving' }
  | { kind: 'stopped'; pending: number };
