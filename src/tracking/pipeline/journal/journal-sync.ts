/**
 * Brings what a click journal appended to the disk, off the event loop: each segment's written
 * bytes, then the directory (the segments' names), every `syncMs` and at close. A record is on
 * disk once a sync that began after it has ended (docs/click-pipeline.md, "Journal").
 */
import { open } from 'node:fs/promises';

/** Makes a file or directory reach the disk. */
export type SyncFile = (path: string) => Promise<void>;

/** A segment file as the syncer sees it: the bytes written to it, and those known to be on disk. */
export interface SyncedFile {
  readonly path: string;
  readonly size: number;
  synced: number;
}

export interface JournalSyncer {
  /** A segment file was created or renamed: its name is durable once the directory is synced. */
  nameChanged(): void;
  /** Syncs everything appended before the call (after the sync running, if any). */
  sync(): Promise<void>;
  /** Ends the timer. */
  stop(): void;
}

export function journalSyncer(deps: {
  dir: string;
  /** 0: no timer; only `sync()` calls. */
  syncMs: number;
  syncFile?: SyncFile;
  /** The journal's segment files now; one no longer listed was deleted (its records are in the store). */
  files: () => readonly SyncedFile[];
  namesSynced: boolean;
}): JournalSyncer {
  const syncFile = deps.syncFile ?? dataSync;
  let namesSynced = deps.namesSynced;
  let running: Promise<void> | null = null;
  let failing = false;

  const syncAppended = async () => {
    const due = deps.files().filter((file) => file.size > file.synced).map((file) => ({ file, size: file.size }));
    const namesDue = !namesSynced;
    namesSynced = true;
    try {
      for (const { file, size } of due) {
        try {
          await syncFile(file.path);
        } catch (error) {
          if (deps.files().includes(file)) throw error;
        }
        file.synced = Math.max(file.synced, size);
      }
      if (namesDue) await syncFile(deps.dir);
    } catch (error) {
      if (namesDue) namesSynced = false;
      throw error;
    }
  };
  const syncOnce = (): Promise<void> => (running ??= syncAppended().finally(() => (running = null)));
  const unsynced = () => !namesSynced || deps.files().some((file) => file.size > file.synced);

  const timer =
    deps.syncMs > 0
      ? setInterval(() => {
        if (running || !unsynced()) return;
        syncOnce().then(
          () => (failing = false),
          (error) => {
            if (!failing) console.error('journal: syncing to disk failed; retrying', error);
            failing = true;
          },
        );
      }, deps.syncMs)
      : undefined;
  timer?.unref?.();

  return {
    nameChanged: () => (namesSynced = false),
    async sync() {
      await running?.catch(() => {});
      await syncOnce();
    },
    stop: () => clearInterval(timer),
  };
}

/** fdatasync of a file or directory, run by the thread pool. */
export async function dataSync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
