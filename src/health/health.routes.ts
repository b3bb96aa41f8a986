import { Elysia } from 'elysia';
import type { Config } from '../config';
import type { Db } from '../db/db';

/** A load balancer's probe should hear "unhealthy" quickly, not hang with a stuck database. */
const DB_TIMEOUT_MS = 2000;

export interface Health {
  status: 'ok' | 'degraded';
  db: 'ok' | 'error';
  latencyMs: number;
  version: string;
}

/** One real round trip to the database, bounded in time. */
export async function checkHealth({ db, version }: { db: Pick<Db, 'query'>; version: string }, timeoutMs = DB_TIMEOUT_MS): Promise<Health> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dbOk: boolean;
  try {
    await Promise.race([
      db.query('SELECT 1'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('database timeout')), timeoutMs);
      }),
    ]);
    dbOk = true;
  } catch {
    dbOk = false;
  } finally {
    clearTimeout(timer);
  }
  const latencyMs = Math.round(performance.now() - started);
  return { status: dbOk ? 'ok' : 'degraded', db: dbOk ? 'ok' : 'error', latencyMs, version };
}

/** GET /api/health: 200 when the database answers, 503 with db: 'error' when it does not. */
export function healthRoutes({ db, config }: { db: Db; config: Pick<Config, 'version'> }) {
  return new Elysia({ name: 'health' }).get('/api/health', async ({ set }) => {
    const health = await checkHealth({ db, version: config.version });
    if (health.db === 'error') set.status = 503;
    return health;
  });
}
