import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * A data file's bytes without reading them onto a heap: Bun.mmap (private, so nothing written
 * through it could reach the file). Bun opens the file for writing to map it, so a file the
 * process may only read (a root-owned node_modules in the container image) is copied to
 * `copyDir` once and the copy mapped; without a `copyDir`, it is read into memory.
 */
export interface MapOptions {
  /** A directory the process may write (DATA_DIR/ipintel in the service). */
  copyDir?: string;
  /** The mapping itself; tests stand in a refusal. */
  map?: (path: string) => Uint8Array;
}

const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

const mmapPrivate = (path: string) => Bun.mmap(path, { shared: false });

export function mapFile(path: string, { copyDir, map = mmapPrivate }: MapOptions = {}): Uint8Array {
  try {
    return map(path);
  } catch (error) {
    if (!NOT_WRITABLE.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
  if (copyDir !== undefined) {
    try {
      return map(writableCopy(path, copyDir));
    } catch (error) {
      console.error(`${path}: no mappable copy in ${copyDir} (${(error as Error).message}); reading it into memory`);
    }
  } else {
    console.error(`${path} cannot be mapped (the process may not write it); reading it into memory`);
  }
  return readFileSync(path);
}

/**
 * `copy-<fingerprint>-<name>` in `copyDir`, made once per version of the file (its path, size
 * and time); copies of other versions of the same name are removed.
 */
function writableCopy(path: string, copyDir: string): string {
  const stat = statSync(path);
  const fingerprint = new Bun.CryptoHasher('sha256').update(`${path}|${stat.size}|${Math.trunc(stat.mtimeMs)}`).digest('hex').slice(0, 16);
  const name = basename(path);
  const copy = join(copyDir, `copy-${fingerprint}-${name}`);
  const existing = statSafe(copy);
  if (existing?.size === stat.size) return copy;
  mkdirSync(copyDir, { recursive: true });
  const temporary = `${copy}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    copyFileSync(path, temporary);
    // The copy keeps the original's mode; its owner must be able to open it for writing.
    chmodSync(temporary, 0o600);
    renameSync(temporary, copy);
  } finally {
    rmSync(temporary, { force: true });
  }
  for (const file of readdirSync(copyDir)) {
    if (file !== basename(copy) && file.startsWith('copy-') && file.endsWith(`-${name}`)) rmSync(join(copyDir, file), { force: true });
  }
  return copy;
}

function statSafe(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
