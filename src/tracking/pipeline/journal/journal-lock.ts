import { join } from 'node:path';
import { lockFile } from '../../../shared/files/file-lock';

const LOCK_FILE = 'journal.pid';

export class JournalBusy extends Error {}

const heldHere = new Set<string>();

/** One process per journal directory: two writers would replay and delete each other's segments. */
export function lockJournalDir(dir: string): () => void {
  const file = join(dir, LOCK_FILE);
  if (heldHere.has(file)) throw new JournalBusy(`the click journal in ${dir} is already open in this process`);
  const release = lockFile(file, (holder) =>
    new JournalBusy(`the click journal in ${dir} is held by a running process${holder ? ` (pid ${holder})` : ''}; give each node its own DATA_DIR`),
  );
  heldHere.add(file);
  return () => {
    heldHere.delete(file);
    release();
  };
}
