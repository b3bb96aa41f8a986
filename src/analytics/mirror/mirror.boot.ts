import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config/config';
import type { Db } from '../../db/db';
import { createMirror, type Mirror } from './mirror';
import { createMirrorThread } from './mirror.thread';

/**
 * The node's mirror, started: DATA_DIR/analytics.duckdb unless `path` says otherwise, copying
 * every MIRROR_INTERVAL_MS (0: only on catchUp()) within MIRROR_MEMORY_MB and MIRROR_THREADS; on a
 * thread of its own on Postgres and beside the embedded store's own thread, here on a PGlite in
 * this thread's memory.
 */
export async function startMirror(
  config: Pick<Config, 'dataDir' | 'mirrorIntervalMs' | 'mirrorMemoryMb' | 'mirrorThreads' | 'databaseUrl'>,
  db: Db,
  path?: string,
  busy?: () => boolean,
): Promise<Mirror> {
  let file = path;
  if (file === undefined) {
    mkdirSync(config.dataDir, { recursive: true });
    file = join(config.dataDir, 'analytics.duckdb');
  }
  const settings = { intervalMs: config.mirrorIntervalMs, memoryMb: config.mirrorMemoryMb, threads: config.mirrorThreads };
  if (db.kind === 'postgres' && config.databaseUrl) {
    return createMirrorThread({ databaseUrl: config.databaseUrl, path: file, ...settings, busy });
  }
  if (db.storeChannel) return createMirrorThread({ storePort: db.storeChannel(), path: file, ...settings, busy });
  const mirror = await createMirror({ db, path: file, ...settings, busy });
  mirror.start();
  return mirror;
}

/**
 * A node without a mirror (createServices with `mirror: false`, for tests that never read it):
 * nothing is copied, and a read fails saying why. No route reads the mirror.
 */
export function absentMirror(): Mirror {
  const refuse = () => Promise.reject(new Error('analytics mirror is off on this node'));
  return { start() {}, catchUp: refuse, query: refuse, stop: async () => {} };
}
