import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { lockFile } from '../shared/files/file-lock';

export class DataDirBusy extends Error {}

/** Held by the process that owns a DATA_DIR; `release` is for a clean stop (an exit releases it too). */
export interface DataDirLock {
  dataDir: string;
  release(): void;
}

/** The lock's file; it holds the owner's pid, for operators. */
export const DATA_DIR_LOCK_FILE = 'data.lock';

/**
 * One process per DATA_DIR: PGlite is single-process, and two nodes would replay and delete each
 * other's click journal and share one DuckDB mirror. The server takes this on either backend
 * before it opens anything in the directory; the CLI takes it on the embedded store only.
 */
/** Where a node keeps its store: Postgres at DATABASE_URL, else PGlite under DATA_DIR. */
export interface StoreSettings {
  dataDir: string;
  databaseUrl?: string;
  /** The embedded store's shared_buffers in MiB (EMBEDDED_BUFFERS_MB); PGlite's own 128 without it. */
  embeddedBuffersMb?: number;
  /** EMBEDDED_STORE_THREAD: the embedded store in a thread of its own (pglite.thread.ts). */
  embeddedStoreThread?: boolean;
}

export function lockDataDir(config: StoreSettings): DataDirLock {
  const { dataDir } = config;
  mkdirSync(dataDir, { recursive: true });
  const advice = config.databaseUrl ? 'give each node its own DATA_DIR' : 'stop it first, or set DATABASE_URL to use Postgres';
  const release = lockFile(join(dataDir, DATA_DIR_LOCK_FILE), (holder) =>
    new DataDirBusy(`DATA_DIR ${dataDir} is held by a running process${holder ? ` (pid ${holder})` : ''}; ${advice}`),
  );
  return { dataDir, release };
}
