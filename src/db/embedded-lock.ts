import { join } from 'node:path';
import { acquirePidLock } from '../shared/pid-lock';

export class EmbeddedStoreBusy extends Error {}

/**
 * PGlite is a single-process database: two processes on one directory corrupt it. The server
 * (and the CLI) take this pid file first; a second taker is told clearly who holds the store.
 */
export function lockEmbeddedStore(dataDir: string): () => void {
  return acquirePidLock(join(dataDir, 'pglite.pid'), (holder) =>
    holder
      ? new EmbeddedStoreBusy(`the embedded store in ${dataDir} is held by a running server (pid ${holder}); stop it first, or set DATABASE_URL to use Postgres`)
      : new EmbeddedStoreBusy(`could not lock the embedded store in ${dataDir}`),
  );
}
