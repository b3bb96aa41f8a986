import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import type { Queryable } from '../db/db';
import { createMirror, type Mirror } from './mirror';

/**
 * The node's mirror, started: DATA_DIR/analytics.duckdb unless `path` says otherwise
 * (':memory:' in tests), copying every MIRROR_INTERVAL_MS (0: only on catchUp()).
 */
export async function startMirror(
  config: Pick<Config, 'dataDir' | 'mirrorIntervalMs'>,
  db: Queryable,
  path?: string,
  busy?: () => boolean,
): Promise<Mirror> {
  let file = path;
  if (file === undefined) {
    mkdirSync(config.dataDir, { recursive: true });
    file = join(config.dataDir, 'analytics.duckdb');
  }
  const mirror = await createMirror({ db, path: file, intervalMs: config.mirrorIntervalMs, busy });
  mirror.start();
  return mirror;
}
