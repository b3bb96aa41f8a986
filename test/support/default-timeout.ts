import { setDefaultTimeout } from 'bun:test';

/**
 * Preloaded by `bun test` (bunfig.toml has no timeout key): a file or a test run on its own, as in
 * `bun test test/x.test.ts -t name`, gets the suite's 60 s rather than Bun's 5 s. Bun applies a
 * preload's default to the first file of a run only, so runs of several files pass --timeout
 * (npm test and the test:* scripts do). A file importing slow-suite.ts still gets its 120 s.
 */
setDefaultTimeout(60_000);
