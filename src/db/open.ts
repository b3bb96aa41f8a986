import { join } from 'node:path';
import { lockDataDir, type DataDirLock, type StoreSettings } from './data-dir-lock';
import type { Db } from './db';
import { openPglite } from './pglite';
import { openPgliteThread } from './pglite.thread';
import { openPostgres } from './postgres';

/**
 * Postgres when DATABASE_URL is set, otherwise the embedded PGlite store under DATA_DIR. The
 * embedded store opens under `lock` when the caller holds DATA_DIR already (the server), else
 * under a lock of its own, released on close.
 */
export async function openDb(config: StoreSettings, lock?: DataDirLock): Promise<Db> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  if (lock && lock.dataDir !== config.dataDir) throw new Error(`the lock held is on ${lock.dataDir}, not on ${config.dataDir}`);
  const unlock = lock ? () => {} : lockDataDir(config).release;
  try {
    const dir = join(config.dataDir, 'pglite');
    const settings = { sharedBuffersMb: config.embeddedBuffersMb };
    const db = config.embeddedStoreThread ? await openPgliteThread(dir, settings) : await openPglite(dir, settings);
    return {
      ...db,
      async close() {
        await db.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
