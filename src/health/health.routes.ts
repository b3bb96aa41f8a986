import { Elysia } from 'elysia';
import type { Config } from '../config';
import type { Db } from '../db/db';

const DB_TIMEOUT_MS = 2000;

/** Liveness plus a real round trip to the database; 503 when the database does not answer. */
export function healthRoutes({ db, config }: { db: Db; config: Pick<Config, 'version'> }) {
  return new Elysia({ name: 'health' }).get('/api/health', async ({ set }) => {
    const started = performance.now();
    let dbOk = false;
    try {
      await Promise.race([
        db.query('SELECT 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('database timeout')), DB_TIMEOUT_MS)),
      ]);
      dbOk = true;
    } catch {
      dbOk = false;
    }
    const latencyMs = Math.round(performance.now() - started);
    if (!dbOk) set.status = 503;
    return { status: dbOk ? 'ok' : 'degraded', db: dbOk ? 'ok' : 'error', latencyMs, version: config.version };
  });
}
