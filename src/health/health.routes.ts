import { Elysia, t } from 'elysia';
import { documented } from '../http/documented';
import type { Config } from '../config/config';
import type { Db } from '../db/db';
import type { WriterState } from '../tracking/pipeline/click-pipeline';

/** A load balancer's probe should hear "unhealthy" quickly, not hang with a stuck database. */
const DB_TIMEOUT_MS = 2000;

/** Whether answered clicks reach the database (src/tracking/pipeline/click-pipeline.ts), and how many wait. */
export interface ClickWriterHealth {
  writer: WriterState;
  backlog: number;
}

export interface Health {
  status: 'ok' | 'degraded';
  db: 'ok' | 'error';
  latencyMs: number;
  version: string;
  clicks?: ClickWriterHealth;
}

/** Health as a model for the OpenAPI document. */
export const HealthBody = t.Object({
  status: t.Union([t.Literal('ok'), t.Literal('degraded')]),
  db: t.Union([t.Literal('ok'), t.Literal('error')]),
  latencyMs: t.Integer({ minimum: 0 }),
  version: t.String(),
  clicks: t.Optional(t.Object({ writer: t.Union([t.Literal('ok'), t.Literal('retrying'), t.Literal('stalled')]), backlog: t.Integer({ minimum: 0 }) })),
});

/** One real round trip to the database, bounded in time. */
export async function checkHealth(
  { db, version, clickWriter }: { db: Pick<Db, 'query'>; version: string; clickWriter?: () => ClickWriterHealth },
  timeoutMs = DB_TIMEOUT_MS,
): Promise<Health> {
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
  const clicks = clickWriter?.();
  const ok = dbOk && (clicks === undefined || clicks.writer === 'ok');
  return { status: ok ? 'ok' : 'degraded', db: dbOk ? 'ok' : 'error', latencyMs, version, ...(clicks && { clicks }) };
}

/**
 * GET /api/health: 200 when the database answers, 503 with db: 'error' when it does not. A click
 * writer that is not writing makes it `degraded` but stays 200: the node still answers and journals.
 */
export function healthRoutes({ db, config, clickWriterHealth }: { db: Db; config: Pick<Config, 'version'>; clickWriterHealth?: () => ClickWriterHealth }) {
  return new Elysia({ name: 'health' }).get('/api/health', async ({ set }) => {
    const health = await checkHealth({ db, version: config.version, clickWriter: clickWriterHealth });
    if (health.db === 'error') set.status = 503;
    return health;
  }, { detail: { summary: "Health: a database round trip, the click writer's state, the build's version", ...documented({ 200: ['the database answers', HealthBody], 503: ['the database does not answer', HealthBody] }) } });
}
