/** The messages between pglite.thread.ts (any thread of the node) and pglite.worker.ts (the store's own). */
export interface PgliteThreadInit {
  kind: 'init';
  /** Undefined: in memory (tests). */
  dataDir?: string;
  sharedBuffersMb?: number;
}

/**
 * Sent by the thread that opened the store (the only one holding the Worker): `port` becomes one
 * more channel to the store, for another thread (the click writer's, the mirror's) to open with
 * openPgliteOverPort. Statements from every channel run on the store's one session, in the order
 * they arrive; a transaction opened on a channel takes the session until that channel ends it.
 */
export interface PgliteConnect {
  kind: 'connect';
  port: MessagePort;
}

/** A statement's target: the store, or the open transaction with this number. */
type Target = { tx?: number };

export type PgliteRequest =
  | ({ kind: 'query'; id: number; text: string; params: readonly unknown[] } & Target)
  | ({ kind: 'exec'; id: number; script: string } & Target)
  | { kind: 'begin'; id: number }
  | { kind: 'end'; id: number; tx: number; commit: boolean }
  | { kind: 'bulkInsert'; id: number; table: string; columns: readonly string[]; rows: readonly (readonly unknown[])[]; suffix?: string }
  | { kind: 'copyFrom'; id: number; table: string; columns: readonly string[]; text: string }
  | { kind: 'syncCommits'; id: number }
  | { kind: 'listen'; id: number; channel: string }
  | { kind: 'unlisten'; id: number; listener: number }
  | { kind: 'notify'; id: number; channel: string; payload: string }
  | { kind: 'close'; id: number };

/** An error as it crosses the channel: its message and the database's fields (code, constraint ...). */
export interface SentError {
  message: string;
  fields: Record<string, string | number | undefined>;
}

export type PgliteReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'done'; id: number; value: unknown }
  | { kind: 'error'; id: number; error: SentError }
  | { kind: 'notification'; listener: number; payload: string };
