import type { Config } from './config';
import type { Db } from './db/db';
import { memoryRateLimiter, redisRateLimiter, type RateLimiter } from './http/rate-limit';
import { systemClock, type Clock } from './shared/ids';

/**
 * The long-lived parts one node runs beside its routes. main.ts builds them once; tests build
 * them per app instance. `stop()` flushes and closes in dependency order.
 */
export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  rateLimiter: RateLimiter;
  stop(): Promise<void>;
}

export async function createServices(config: Config, db: Db, options: { clock?: Clock } = {}): Promise<Services> {
  const rateLimiter = config.redisUrl ? redisRateLimiter(config.redisUrl) : memoryRateLimiter();
  return {
    config,
    db,
    clock: options.clock ?? systemClock,
    rateLimiter,
    async stop() {
      await rateLimiter.close();
    },
  };
}
