import type { Config } from './config';
import type { Db } from './db/db';
import { memoryRateLimiter, redisRateLimiter, type RateLimiter } from './http/rate-limit';
import { createLinkChanges, type LinkChanges } from './links/link-changes';
import { systemClock, type Clock } from './shared/ids';
import { createIpHasher, type IpHasher } from './shared/ip-hash';

/**
 * The long-lived parts one node runs beside its routes. main.ts builds them once; tests build
 * them per app instance. `stop()` flushes and closes in dependency order.
 */
export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  rateLimiter: RateLimiter;
  ipHasher: IpHasher;
  linkChanges: LinkChanges;
  stop(): Promise<void>;
}

export async function createServices(config: Config, db: Db, options: { clock?: Clock } = {}): Promise<Services> {
  const rateLimiter = config.redisUrl ? redisRateLimiter(config.redisUrl) : memoryRateLimiter();
  const linkChanges = createLinkChanges(db);
  await linkChanges.start();
  return {
    config,
    db,
    clock: options.clock ?? systemClock,
    rateLimiter,
    ipHasher: createIpHasher(config.sessionSecret),
    linkChanges,
    async stop() {
      await linkChanges.stop();
      await rateLimiter.close();
    },
  };
}
