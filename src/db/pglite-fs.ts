/**
 * The embedded store's files made to reach the disk: PGlite's node filesystem has no fsync of its
 * own (Postgres's fsync calls return without syncing), so they are synced here, by the file
 * descriptor the WebAssembly layer holds. docs/operations.md, "Crashes and power cuts".
 */
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { closeSync, constants, fsyncSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Makes an open file reach the disk, by its descriptor. */
export type SyncFile = (fd: number) => void;

/** What the WebAssembly layer gives an fsync: the open node file, by its descriptor. */
interface NodeStream {
  nfd: number;
}

/** The errno an fsync that failed returns to Postgres (EIO), which then stops rather than go on. */
const EIO = 29;

export class SyncingNodeFS extends NodeFS {
  constructor(dataDir: string, private readonly syncFile: SyncFile = fsyncSync) {
    super(dataDir);
  }

  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const result = await super.init(...args);
    const mount = result.emscriptenOpts.preRun ?? [];
    result.emscriptenOpts.preRun = [
      (mod: { NODEFS: { stream_ops: Record<string, unknown> } }) => {
        mod.NODEFS.stream_ops.fsync = (stream: NodeStream) => {
          try {
            this.syncFile(stream.nfd);
            return 0;
          } catch (error) {
            console.error('embedded store: fsync failed', error);
            return EIO;
          }
        };
      },
      ...mount,
    ];
    return result;
  }
}

/**
 * Syncs every file and directory under `dir`, the directories after what they hold: the files
 * PGlite copies in when it creates a store are written without a sync, as are those of a store
 * last run without one.
 */
export function syncTree(dir: string, syncFile: SyncFile = fsyncSync): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) syncTree(path, syncFile);
    else if (entry.isFile()) syncPath(path, constants.O_RDONLY, syncFile);
  }
  syncPath(dir, constants.O_RDONLY | constants.O_DIRECTORY, syncFile);
}

function syncPath(path: string, flags: number, syncFile: SyncFile): void {
  const fd = openSync(path, flags);
  try {
    syncFile(fd);
  } finally {
    closeSync(fd);
  }
}
