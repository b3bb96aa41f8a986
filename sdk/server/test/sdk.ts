/**
 * The package as its tests use it: installed from its own lockfile first (openapi-fetch lives in
 * sdk/server/node_modules, never in the root's), then imported.
 */
import { ensurePackageInstalled } from '../../../scripts/ensure-package-install';

await ensurePackageInstalled('sdk/server');

export const sdk = await import('../src/index.js');
