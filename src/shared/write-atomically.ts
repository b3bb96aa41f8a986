import { renameSync, writeFileSync } from 'node:fs';

/** Writes beside the file and renames over it, so a reader never sees half a file. */
export function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
