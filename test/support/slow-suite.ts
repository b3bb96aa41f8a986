import { setDefaultTimeout } from 'bun:test';

/**
 * Import this FIRST in a test file whose cleanup is slow (PGlite boots, whole-app instances,
 * child processes): a hook gets the default timeout in force when it is registered, and the
 * shared support modules register their afterAll hooks as they are first imported. Modules
 * run once per process, so each file still sets its own default for its tests.
 */
setDefaultTimeout(120_000);
