import type { ThreadStore } from '../../db/thread-store';
import type { IpIntelOptions } from '../../ipintel/ip-intel';

/**
 * Messages between a node's main thread and its click writer thread (click-writer.thread.ts
 * and click-writer.worker.ts). Each write carries an id; the worker answers it with the same id.
 */
export interface ClickWriterInit extends ThreadStore {
  /** The secret the node's IP hasher is keyed with (createIpHasher), so hashes match the main thread's. */
  ipHashSecret: string;
  setAsidePath: string;
  /** Where the shipped IP data is cached, as on the main thread (risk scoring reads the IP type). */
  ipIntelOptions: IpIntelOptions;
}

/** `lines` arrives as its own buffer, moved to the thread (not copied again), and is decoded there. */
export type ClickWriterRequest = { kind: 'write'; id: number; lines: Uint8Array; count: number; sideBySide: boolean } | { kind: 'close'; id: number };

export type ClickWriterReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'done'; id: number }
  /** `code` is the driver's or the database's (SQLSTATE), so the pipeline can tell a closed connection from a refusal. */
  | { kind: 'error'; id: number; message: string; code?: string };
