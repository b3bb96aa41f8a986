import { setDefaultTimeout } from 'bun:test';

/**
 * Import this FIRST in a test file whose tests or cleanup hooks are slow (PGlite boots, argon2,
 * whole-app instances, child processes): hooks take the default timeout in force when they are
 * registered, and the shared support modules register theirs as they are imported.
 */
setDefaultTimeout(120_000);
