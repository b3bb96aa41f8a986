/**
 * The package as its tests use it. openapi-fetch lives in sdk/server/node_modules, never in the
 * root's: the suite's preload installs it from the package's own lockfile first
 * (test/support/sub-packages.ts).
 */
export const sdk = await import('../src/index.js');
