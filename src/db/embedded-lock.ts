import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class EmbeddedStoreBusy extends Error {}

/**
 * PGlite is a single-process database: two processes on one directory corrupt it. The server
 * (and the CLI) take this pid file first; a second taker is told clearly who holds the store.
 */
export function lockEmbeddedStore(dataDir: string): () => void {
  const file = join(dataDir, 'pglite.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8').trim());
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new EmbeddedStoreBusy(
          `the embedded store in ${dataDir} is held by a running server (pid ${holder}); stop it first, or set DATABASE_URL to use Postgres`,
        );
      }
      rmSync(file, { force: true }); // left behind by a process that died
    }
  }
  throw new EmbeddedStoreBusy(`could not lock the embedded store in ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
