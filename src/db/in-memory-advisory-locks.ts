import type { Db } from './db';

/**
 * One process owns the embedded store (DATA_DIR/data.lock) and PGlite's one session would take a
 * lock it already holds again, so its advisory locks are held in memory, by the process.
 */
export function inMemoryAdvisoryLocks(): Db['tryAdvisoryLock'] {
  const heldLocks = new Set<number>();
  return async (key) => {
    if (heldLocks.has(key)) return null;
    heldLocks.add(key);
    return {
      async release() {
        heldLocks.delete(key);
      },
    };
  };
}
