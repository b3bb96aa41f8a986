import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import type { Db } from './db';
import { lockEmbeddedStore } from './embedded-lock';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';

/** Postgres when DATABASE_URL is set, otherwise the embedded PGlite store under DATA_DIR. */
export async function openDb(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Db> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  mkdirSync(config.dataDir, { recursive: true });
  const unlock = lockEmbeddedStore(config.dataDir);
  try {
    const db = await openPglite(join(config.dataDir, 'pglite'));
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
