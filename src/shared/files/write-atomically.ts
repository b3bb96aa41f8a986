import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes beside the file and renames over it, so a reader never sees half a file. The temporary
 * name is unique to the call: threads of one process may write the same file at once.
 */
export function writeAtomically(path: string, content: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}
