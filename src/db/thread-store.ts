import type { Db } from './db';
import { openPgliteOverPort } from './pglite.thread';
import { openPostgres } from './postgres';

/** How a thread of the node is told to reach the store: Postgres by its URL, or the embedded store's thread by a port to it. */
export interface ThreadStore {
  databaseUrl?: string;
  storePort?: MessagePort;
}

/**
 * The store a worker thread was given, opened in that thread (the click writer's, the mirror's).
 * `connections` is the Postgres pool's size; the embedded store has one session, shared by every channel.
 */
export function openThreadStore(store: ThreadStore, connections: number, thread: string): Db {
  if (store.storePort) return openPgliteOverPort(store.storePort);
  if (!store.databaseUrl) throw new Error(`the ${thread} thread was given no store`);
  return openPostgres(store.databaseUrl, { max: connections });
}
