/**
 * Preloaded first by `bun test` (bunfig.toml): the SDK packages with a lockfile of their own
 * (sdk/server, sdk/react-native; never part of the root `npm ci`) are installed from it before any
 * test runs. Once a package is installed this is a hash of its lockfile
 * (scripts/ensure-package-install.ts).
 *
 * When it did install, the run starts again in a new process with the same arguments and ends
 * with that one's status: Bun has already read the directories while finding the test files,
 * and would not see the new node_modules in this process.
 */
import { Glob } from 'bun';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePackageInstalled } from '../../scripts/ensure-package-install';

const ROOT = join(import.meta.dir, '../..');

let installed = false;
for (const lockfile of [...new Glob('sdk/*/package-lock.json').scanSync(ROOT)].sort()) {
  if (await ensurePackageInstalled(dirname(lockfile))) installed = true;
}
if (installed) {
  // process.argv names the test file here, not the command: the command line is the kernel's.
  const commandLine = existsSync('/proc/self/cmdline') ? readFileSync('/proc/self/cmdline', 'utf8').split('\0').filter(Boolean) : [];
  if (commandLine.length === 0) {
    console.error('[sub-packages] installed; run the tests again so they see the new packages');
    process.exit(1);
  }
  console.error('[sub-packages] installed; the test run starts again so it sees them');
  const again = Bun.spawn([process.execPath, ...commandLine.slice(1)], { stdio: ['inherit', 'inherit', 'inherit'] });
  process.exit(await again.exited);
}
