import type { ThreadStore } from '../../db/thread-store';
import type { MirrorSettings } from './mirror-settings';

/**
 * Messages between a node's main thread and its mirror thread (mirror.thread.ts and
 * mirror.worker.ts). Requests carry an id; the worker answers each with the same id.
 */
export interface MirrorWorkerInit extends MirrorSettings, ThreadStore {
  path: string;
  intervalMs: number;
  tables?: readonly string[];
  batchSize?: number;
  /** Whether the main thread's ingest has a backlog as the thread starts. */
  busy: boolean;
}

export type MirrorRequest =
  | { kind: 'catchUp'; id: number }
  | { kind: 'query'; id: number; sql: string; params: readonly unknown[] }
  /** `budgetMs`: what is left of the node's stop deadline for the final catch-up. */
  | { kind: 'stop'; id: number; budgetMs?: number }
  /** The main thread's ingest backlog changed: interval rounds wait while it is true. */
  | { kind: 'busy'; busy: boolean };

export type MirrorReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'log'; message: string }
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; message: string };
