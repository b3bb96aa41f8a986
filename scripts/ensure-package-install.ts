/**
 * Installs a sub-package's own dependencies from its own lockfile the first time something needs
 * them: `bun scripts/ensure-package-install.ts sdk/react-native`, or `ensurePackageInstalled(dir)`
 * from a test. The root `npm ci` stays light: tool chains that only one package's checks need
 * (React Native's types, a TypeScript 5 for a code generator) are never part of it.
 *
 * An install is skipped when `node_modules` was made from the lockfile as it is now (a stamp
 * holds the lockfile's hash). Two processes asking at once install once: the second waits on a
 * lock directory made with mkdir, which is atomic.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = join(import.meta.dir, '..');
const STAMP = '.installed-from-lockfile';
// A lock older than this was left by a process that died mid-install.
const STALE_LOCK_MS = 15 * 60_000;

function lockfileHash(dir: string): string {
  const lockfile = join(dir, 'package-lock.json');
  if (!existsSync(lockfile)) throw new Error(`${lockfile} is missing: a sub-package installs only from its own lockfile`);
  return createHash('sha256').update(readFileSync(lockfile)).digest('hex');
}

function isCurrent(dir: string, hash: string): boolean {
  const stamp = join(dir, 'node_modules', STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash;
}

async function takeLock(lock: string): Promise<void> {
  for (;;) {
    try {
      mkdirSync(lock);
      return;
    } catch {
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else await Bun.sleep(500);
    }
  }
}

/**
 * Makes `dir/node_modules` match `dir/package-lock.json`, running `npm ci` there when it does not.
 * Resolves to whether it installed (false: it was current, or another process installed it).
 */
export async function ensurePackageInstalled(packageDir: string): Promise<boolean> {
  const dir = resolve(ROOT, packageDir);
  const hash = lockfileHash(dir);
  if (isCurrent(dir, hash)) return false;
  const lock = join(dir, '.install-lock');
  await takeLock(lock);
  try {
    if (isCurrent(dir, hash)) return false;
    console.error(`[ensure-package-install] ${packageDir}: npm ci from its own lockfile (first use only)`);
    const child = Bun.spawn(['npm', 'ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: dir,
      stdout: 'inherit',
      stderr: 'inherit',
      env: { ...process.env, npm_config_workspaces: 'false' },
    });
    const code = await child.exited;
    if (code !== 0) throw new Error(`npm ci in ${packageDir} exited with ${code}`);
    writeFileSync(join(dir, 'node_modules', STAMP), `${hash}\n`);
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error('usage: bun scripts/ensure-package-install.ts <package-dir>...');
    process.exit(2);
  }
  for (const dir of dirs) await ensurePackageInstalled(dir);
}
